import type { Duplex } from "node:stream";
import { keepShapeOf } from "../tuning/kept-shapes.js";
import type { FrameWrites, WriteCallback } from "./frame-writes.js";
import { writeCorked } from "./socket-write.js";

/**
 * A publish's socket writes through each socket's own stream, with nothing but its public methods
 * (WRITE_PATH=stream), made as they are added. Each connection's frames still leave in one write:
 * corked, the stream hands them to the kernel together when uncorked.
 */
export class StreamWrites implements FrameWrites {
  /** The streams copy nothing they did not take: `add` says which parts they still hold. */
  readonly written = Promise.resolve();

  constructor() {
    keepShapeOf("writes", this);
  }

  add(socket: Duplex, parts: readonly Buffer[], written?: WriteCallback): boolean {
    if (socket.destroyed || !socket.writable) {
      if (written) process.nextTick(written, new Error("not sent: the connection is closing"));
      return false;
    }
    return writeCorked(socket, parts, written);
  }

  send(): Promise<void> {
    return this.written;
  }
}
