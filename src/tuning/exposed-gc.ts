/**
 * V8's collector, exposed when the process runs with `--expose-gc` (as both start commands run it);
 * undefined otherwise, and collections are then left to V8. Called bare it collects everything; of its
 * options Node 20 knows `{ type: "minor" }` only (any other type is taken as minor, not as major).
 */
export const exposedGc = (globalThis as { gc?: (options?: { type: "minor" }) => void }).gc;
