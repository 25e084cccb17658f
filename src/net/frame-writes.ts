import type { Duplex } from "node:stream";

export type WriteCallback = (error?: Error | null) => void;

/** One publish's socket writes, made in `send` (see the outbox's two write paths). */
export interface FrameWrites {
  /**
   * Adds a write of `parts`, one after the other, to `socket`; `written` is called once they are all
   * handed to the kernel. Returns whether a stream still holds `parts` themselves once `send` is done,
   * so that their memory must not be written over.
   */
  add(socket: Duplex, parts: readonly Buffer[], written?: WriteCallback): boolean;
  /** Makes the writes; resolves once their memory may be written over. */
  send(): Promise<void>;
  /** Resolves as `send`. */
  readonly written: Promise<void>;
}
