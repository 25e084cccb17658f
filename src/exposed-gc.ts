/**
 * V8's collector, exposed when the process runs with `--expose-gc` (as both start commands run it);
 * undefined otherwise, and collections are then left to V8.
 */
export const exposedGc = (globalThis as { gc?: (options?: { type: "minor" | "major" }) => void }).gc;
