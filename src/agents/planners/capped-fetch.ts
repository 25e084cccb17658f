// The model clients' fetch: a provider's answer is read up to a cap. The token limit only asks a model
// to be brief; a broken gateway or local host may send anything, and the agents run beside the world.

/** The most of an answer read: a decision of AGENT_MODEL_MAX_TOKENS tokens is a few kilobytes. */
export const MAX_ANSWER_BYTES = 256 * 1024;

/** An answer past MAX_ANSWER_BYTES: refused, and read no further. */
export class AnswerTooLargeError extends Error {
  override readonly name = "AnswerTooLargeError";

  constructor() {
    super(`the model's answer was larger than ${MAX_ANSWER_BYTES / 1024} kB`);
  }
}

/** `fetch`, whose answers end in AnswerTooLargeError once past the cap (at once when their length says so). */
export const cappedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (Number(response.headers.get("content-length")) > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw new AnswerTooLargeError();
  }
  if (!response.body) return response;
  let read = 0;
  const capped = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, stream) {
        read += chunk.byteLength;
        if (read > MAX_ANSWER_BYTES) stream.error(new AnswerTooLargeError());
        else stream.enqueue(chunk);
      },
    }),
  );
  return new Response(capped, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

/** Whether a failure is, or was caused by, an answer past the cap (the model clients wrap errors). */
export function wasTooLarge(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++)
    if (cause instanceof AnswerTooLargeError) return true;
  return false;
}
