import type { Client } from "@colyseus/core";
import type { WritePath } from "../config/write-path.js";
import { SendBatch } from "./batched-sends.js";
import type { FrameWrites } from "./frame-writes.js";
import { StreamWrites } from "./stream-writes.js";
import { WriteSlab } from "./write-slab.js";
import { SocketWrites, WriterThread } from "./writer-thread.js";

/** Where the world's publishes go out: built once with the server, closed at its shutdown. */
export interface Outbox {
  readonly path: WritePath;
  /**
   * Runs `send` so that what it sends each client leaves in one write. A tick sends many small frames
   * to each client (its view, chat, hits); one write per client instead of one or two per frame is what
   * lets a world of thousands publish within its tick. `send` may take memory for frames it shares
   * between clients from `slab`. The caller must `send()` the writes returned, once its own work is
   * done: on one core the writer thread then takes the core.
   */
  batch(clients: Iterable<Client>, send: (slab: WriteSlab) => void): FrameWrites;
  /** Resolves once every write handed over so far has been made (what waited behind them included). */
  written(): Promise<void>;
  /** Stops the writer thread (what it had not written closes its connection) and frees the slab. */
  close(): Promise<void>;
}

export function createOutbox(path: WritePath): Outbox {
  return path === "thread" ? new ThreadOutbox() : new StreamOutbox();
}

/** Runs `send` within a batch of `clients` and flushes it into `writes`, even when `send` fails. */
function batched<W extends FrameWrites>(
  batch: SendBatch,
  slab: WriteSlab,
  send: (slab: WriteSlab) => void,
  newWrites: () => W,
): W {
  try {
    send(slab);
  } catch (error) {
    // What was sent before the failure still goes out, and the clients send on their own again.
    void batch.flush(newWrites()).send();
    throw error;
  }
  return batch.flush(newWrites());
}

class ThreadOutbox implements Outbox {
  readonly path = "thread";
  /** Where a publish assembles each connection's frames: one thread, one publish at a time. */
  private slab = new WriteSlab();
  /** Started on first use: a process that never publishes runs no thread. Once stopped, not again. */
  private thread: WriterThread | undefined;

  batch(clients: Iterable<Client>, send: (slab: WriteSlab) => void): SocketWrites {
    // A stopped thread is not usable: a publish after the close goes through the streams.
    this.thread ??= new WriterThread();
    const thread = this.thread;
    const batch = new SendBatch(clients, this.slab, true);
    return batched(batch, this.slab, send, () => new SocketWrites(thread));
  }

  async written(): Promise<void> {
    await this.thread?.answered();
  }

  async close(): Promise<void> {
    this.slab = new WriteSlab();
    await this.thread?.stop();
  }
}

class StreamOutbox implements Outbox {
  readonly path = "stream";
  private slab = new WriteSlab();

  batch(clients: Iterable<Client>, send: (slab: WriteSlab) => void): StreamWrites {
    const batch = new SendBatch(clients, this.slab, false);
    return batched(batch, this.slab, send, () => new StreamWrites());
  }

  /** The streams write on their own: there is nothing to wait for. */
  async written(): Promise<void> {}

  async close(): Promise<void> {
    this.slab = new WriteSlab();
  }
}
