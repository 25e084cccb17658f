import type { Duplex } from "node:stream";
import { Worker } from "node:worker_threads";
import { Deferred } from "@colyseus/core";
import { socketDescriptor, writePartsToSocket } from "./socket-write.js";

/**
 * The writer thread's own code (CommonJS, run with `eval`: it needs no file, whether the server runs
 * from source or compiled). Each message is one publish's writes, each a descriptor and the regions of
 * shared memory to write to it in one system call; the reply says how many bytes the kernel took of
 * each (0 when it took none: a full buffer or a closed connection, which the socket's stream then
 * reports). Unlike the server's helper threads (src/helper-threads.ts) it keeps the main thread's
 * priority: its frames are what the players wait for (behind the main thread, on one core a publish's
 * frames waited up to 330 ms for it in bench/world.ts at 1,000 players).
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { writeSync, writevSync } = require("node:fs");
const { performance } = require("node:perf_hooks");
parentPort.on("message", ({ memory, writes, regions }) => {
  const started = performance.now();
  const views = memory.map((shared) => new Uint8Array(shared));
  const taken = new Int32Array(writes.length / 2);
  let region = 0;
  for (let i = 0; i < taken.length; i++) {
    const descriptor = writes[2 * i];
    const count = writes[2 * i + 1];
    const parts = [];
    for (let end = region + count; region < end; region++) {
      const start = regions[3 * region + 1];
      parts.push(views[regions[3 * region]].subarray(start, start + regions[3 * region + 2]));
    }
    try {
      taken[i] = count === 1 ? writeSync(descriptor, parts[0]) : writevSync(descriptor, parts);
    } catch {
      taken[i] = 0;
    }
  }
  parentPort.postMessage({ taken, ms: performance.now() - started }, [taken.buffer]);
});
`;

/** What the writer thread answers for one batch. */
export interface WrittenBatch {
  /** Bytes the kernel took of each write, in the batch's order. */
  readonly taken: Int32Array;
  /** How long the thread took to write the batch. */
  readonly ms: number;
}

type WriteCallback = (error?: Error | null) => void;
/** A socket's own methods that a hold puts off, as they were before it. */
interface HeldMethods {
  write: Duplex["write"];
  end: Duplex["end"];
  destroy: Duplex["_destroy"];
}

/** The sockets the writer thread is writing to, each with what waits for it. */
const heldSockets = new Map<Duplex, SocketHold>();

// What a held socket is written, ended or destroyed with (see SocketHold): put off until its release.
function holdWrite(this: Duplex, ...args: unknown[]): boolean {
  holdOf(this).later((original) => original.write.apply(this, args as never));
  // "Go on writing": what waits here is bounded by a tick's frames, not by a reader.
  return true;
}

function holdEnd(this: Duplex, ...args: unknown[]): Duplex {
  holdOf(this).later((original) => original.end.apply(this, args as never));
  return this;
}

function holdDestroy(this: Duplex, error: Error | null, callback: (error?: Error | null) => void): void {
  holdOf(this).closeLater(error, callback);
}

function holdOf(socket: Duplex): SocketHold {
  return heldSockets.get(socket) as SocketHold;
}

/**
 * A socket the writer thread is writing to. Until it is done, whatever else is written to the socket
 * (a pong, a close frame, an event sent between ticks) and its ending wait, so that bytes leave in the
 * order they were written; and the socket is not closed: its descriptor number, closed and reused by a
 * new connection, would send one player's bytes to another.
 */
class SocketHold {
  private readonly waiting: ((original: HeldMethods) => void)[] = [];
  /** The closing asked for meanwhile: the stream is already marked destroyed, and waits for it. */
  private closing: (() => void) | undefined;
  private readonly original: HeldMethods;

  constructor(readonly socket: Duplex) {
    this.original = { write: socket.write, end: socket.end, destroy: socket._destroy };
    heldSockets.set(socket, this);
    // Own properties, put back by `restore` (assigned, not deleted: deleting would slow the socket down).
    socket.write = holdWrite as Duplex["write"];
    socket.end = holdEnd as Duplex["end"];
    socket._destroy = holdDestroy;
  }

  later(action: (original: HeldMethods) => void): void {
    this.waiting.push(action);
  }

  closeLater(error: Error | null, callback: (error?: Error | null) => void): void {
    this.closing = () => this.original.destroy.call(this.socket, error, callback);
  }

  /**
   * The thread is done: `rest`, what the kernel did not take, goes first, then what waited (what was
   * written after a closing fails as it would have then), then the closing.
   */
  release(rest: Buffer | undefined, written: WriteCallback | undefined): void {
    this.restore();
    if (rest) this.socket.write(rest, written);
    else if (written) process.nextTick(written);
    for (const action of this.waiting) action(this.original);
    this.closing?.();
  }

  /** The thread stopped before it answered: the socket is closed, and what waited is dropped. */
  abandon(): void {
    this.restore();
    if (this.closing) this.closing();
    else this.socket.destroy();
  }

  private restore(): void {
    heldSockets.delete(this.socket);
    this.socket.write = this.original.write;
    this.socket.end = this.original.end;
    this.socket._destroy = this.original.destroy;
  }
}

/** One socket's write in a batch. */
interface HeldWrite {
  readonly hold: SocketHold;
  /** Written one after the other. */
  readonly parts: readonly Buffer[];
  readonly written: WriteCallback | undefined;
}

/** The writes of one batch, handed to the writer thread in one message. */
interface PostedBatch {
  readonly writes: readonly HeldWrite[];
  readonly settled: () => void;
}

/**
 * A thread that writes a publish's frames to the connections' sockets, one system call each. Those
 * writes are most of what a tick costs the main thread at a few thousand clients
 * (bench/write-floor.ts: some 11 µs each on loopback, in the kernel's send path); handed over in one
 * message, they cost the tick next to nothing. With a core to spare they run beside the main thread's
 * work; on one core, they take turns with it after the tick.
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly posted: PostedBatch[] = [];
  private broken = false;

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    this.worker.on("message", (answer: WrittenBatch) => this.settle(answer));
    // A thread that fails closes the connections it had not answered for; later writes go the streams' way.
    const fail = () => this.fail();
    this.worker.on("error", fail);
    this.worker.on("exit", fail);
    // After the listeners: adding a "message" listener refs the worker again.
    this.worker.unref();
  }

  get usable(): boolean {
    return !this.broken;
  }

  /** Stops the thread: what it was given and has not answered for closes its connection (see `fail`). */
  async stop(): Promise<void> {
    await this.worker.terminate();
    this.fail();
  }

  /**
   * `writes`: each write's descriptor and how many regions it has; `regions`: each region's index in
   * `memory`, offset and length, write after write.
   */
  post(batch: PostedBatch, memory: SharedArrayBuffer[], writes: Int32Array, regions: Int32Array): void {
    this.posted.push(batch);
    // Writes on their way keep the process alive; an idle thread does not.
    if (this.posted.length === 1) this.worker.ref();
    this.worker.postMessage({ memory, writes, regions }, [
      writes.buffer as ArrayBuffer,
      regions.buffer as ArrayBuffer,
    ]);
  }

  /** The thread wrote a batch (batches are answered in the order they were posted). */
  settle(answer: WrittenBatch): void {
    const batch = this.posted.shift();
    if (!batch) return;
    if (this.posted.length === 0) this.worker.unref();
    for (const [i, { hold, parts, written }] of batch.writes.entries())
      hold.release(restAfter(parts, answer.taken[i] ?? 0), written);
    batch.settled();
  }

  private fail(): void {
    if (this.broken) return;
    this.broken = true;
    // How much of these the thread wrote is not known: written again, bytes could arrive twice; a
    // connection missing some would read the next frame's bytes as this one's. So they are closed.
    for (const batch of this.posted.splice(0)) {
      for (const { hold, written } of batch.writes) {
        hold.abandon();
        written?.(new Error("the writer thread stopped"));
      }
      batch.settled();
    }
  }
}

/** Writes a batch the thread was not given through each socket's stream, in its place in the order. */
function writeThroughStreams(batch: PostedBatch): void {
  for (const { hold, parts, written } of batch.writes) hold.release(restAfter(parts, 0), written);
  batch.settled();
}

/**
 * What is left of `parts` after the first `taken` bytes, in one buffer of its own (the parts' memory
 * is written over by a later publish), or undefined when nothing is.
 */
function restAfter(parts: readonly Buffer[], taken: number): Buffer | undefined {
  const rest: Buffer[] = [];
  let skip = taken;
  for (const part of parts) {
    if (skip >= part.length) skip -= part.length;
    else {
      rest.push(part.subarray(skip));
      skip = 0;
    }
  }
  return rest.length === 0 ? undefined : Buffer.concat(rest);
}

let processWriterThread: WriterThread | undefined;

/** The process's writer thread, started on first use. */
function theWriterThread(): WriterThread {
  processWriterThread ??= new WriterThread();
  return processWriterThread;
}

/**
 * One publish's socket writes: each connection's frames are handed to the writer thread together in
 * `send`. A socket the thread cannot write to directly (a TLS socket, one with bytes still queued on its
 * stream, one with no descriptor) and memory the thread cannot read are written at once as before (see
 * writePartsToSocket).
 */
export class SocketWrites {
  private readonly writes: HeldWrite[] = [];
  /** Each write's descriptor and number of regions, and each region's memory, offset and length. */
  private readonly descriptorsAndCounts: number[] = [];
  private readonly regions: number[] = [];
  private readonly memory: SharedArrayBuffer[] = [];

  private readonly done = new Deferred<void>();
  /** Resolves once the writes are made (the writer thread is done with their memory). */
  readonly written = this.done.promise;

  /** `thread`: the process's writer thread, started on first use, unless another is given. */
  constructor(private readonly thread = theWriterThread()) {}

  /**
   * Adds a write of `parts`, one after the other, to `socket`; `written` is called once they are all
   * handed to the kernel. Returns whether a stream still holds `parts` themselves once `send` is done,
   * so that their memory must not be written over (as writePartsToSocket).
   */
  add(socket: Duplex, parts: readonly Buffer[], written?: WriteCallback): boolean {
    if (heldSockets.has(socket)) {
      // Still being written to by an earlier batch: this waits behind it, in memory of its own.
      socket.write(Buffer.concat(parts), written);
      return false;
    }
    const descriptor = socketDescriptor(socket);
    if (descriptor < 0 || !this.thread.usable || !parts.every(isShared))
      return writePartsToSocket(socket, parts, written);
    this.writes.push({ hold: new SocketHold(socket), parts, written });
    this.descriptorsAndCounts.push(descriptor, parts.length);
    for (const part of parts) {
      const shared = part.buffer as SharedArrayBuffer;
      let memoryIndex = this.memory.indexOf(shared);
      if (memoryIndex < 0) memoryIndex = this.memory.push(shared) - 1;
      this.regions.push(memoryIndex, part.byteOffset, part.length);
    }
    return false;
  }

  /** Hands the writes to the writer thread; resolves as `written`. */
  send(): Promise<void> {
    const batch = { writes: this.writes, settled: () => this.done.resolve() };
    if (this.writes.length === 0) batch.settled();
    // A thread that failed since the writes were added.
    else if (!this.thread.usable) writeThroughStreams(batch);
    else
      this.thread.post(
        batch,
        this.memory,
        Int32Array.from(this.descriptorsAndCounts),
        Int32Array.from(this.regions),
      );
    return this.written;
  }
}

function isShared(part: Buffer): boolean {
  return part.buffer instanceof SharedArrayBuffer;
}
