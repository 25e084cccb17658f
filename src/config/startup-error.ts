/**
 * A failure at start-up whose message says what is wrong and how to fix it: it is printed alone, as a
 * stack trace would add nothing for the person starting the server.
 */
export class StartupError extends Error {
  override name = "StartupError";
}

/** Ends a start that failed: a StartupError's message alone, anything else with its stack. */
export function exitAfterFailedStart(error: unknown): never {
  console.error(error instanceof StartupError ? error.message : error);
  process.exit(1);
}
