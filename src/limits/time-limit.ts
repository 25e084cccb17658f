/**
 * What `promise` gives, or `late` when it takes longer than `ms`. The timer is cleared with the wait (a
 * storm of requests would otherwise leave one pending each) and never keeps the process alive.
 */
export async function within<T, L>(promise: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const tooLate = new Promise<L>((resolve) => {
    timer = setTimeout(resolve, ms, late).unref();
  });
  try {
    return await Promise.race([promise, tooLate]);
  } finally {
    clearTimeout(timer);
  }
}
