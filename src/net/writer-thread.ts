import { createRequire } from "node:module";
import path from "node:path";
import type { Duplex } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { Deferred } from "@colyseus/core";
import { keepShapeOf } from "../tuning/kept-shapes.js";
import type { FrameWrites, WriteCallback } from "./frame-writes.js";
import { socketDescriptor, writePartsToSocket } from "./socket-write.js";
import type { BatchToWrite, WrittenBatch } from "./writer-worker.js";

export type { WrittenBatch } from "./writer-worker.js";

/**
 * The worker's entry: its file beside this one once compiled into dist/. Run from source (tsx), Node 20
 * loads a worker's entry before the hooks of the process's `--import tsx` apply to it, so the entry
 * registers tsx's loader first and then imports writer-worker.ts.
 */
function workerEntry(): URL {
  if (path.extname(fileURLToPath(import.meta.url)) !== ".ts")
    return new URL("./writer-worker.js", import.meta.url);
  const source = new URL("./writer-worker.ts", import.meta.url).href;
  const entry = `import { register } from ${JSON.stringify(tsxLoaderApi())}; register(); await import(${JSON.stringify(source)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(entry)}`);
}

/** tsx's ES module API, as its package exports it to `import` (this module may run as CommonJS under tsx). */
function tsxLoaderApi(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("tsx/package.json");
  const { exports } = require(manifest) as { exports: Record<string, { import: { default: string } }> };
  return new URL(exports["./esm/api"]!.import.default, pathToFileURL(manifest)).href;
}

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
    stopReading(this.socket);
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

/**
 * Stops reading a socket whose closing waits. Node marks its stream destroyed at once, but the handle
 * reads on until it is closed, and bytes read on a destroyed stream are taken for an error code: Node
 * throws out of the event loop (ERR_OUT_OF_RANGE, "err" ... Received 6, for a client's close frame) and
 * the process ends.
 */
function stopReading(socket: Duplex): void {
  const handle = (socket as { _handle?: { reading?: boolean; readStop?: () => number } | null })._handle;
  if (typeof handle?.readStop !== "function") return;
  handle.reading = false;
  handle.readStop();
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
 * A thread that writes a publish's frames (its code: writer-worker.ts) to the connections' sockets, one system call each. Those
 * writes are most of what a tick costs the main thread at a few thousand clients
 * (bench/write-floor.ts: some 11 µs each on loopback, in the kernel's send path); handed over in one
 * message, they cost the tick next to nothing. With a core to spare they run beside the main thread's
 * work; on one core, they take turns with it after the tick. Unlike the server's helper threads
 * (src/tuning/helper-threads.ts) it keeps the main thread's priority: its frames are what the players wait for
 * (behind the main thread, on one core a publish's frames waited up to 330 ms for it in bench/world.ts
 * at 1,000 players).
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly posted: PostedBatch[] = [];
  private broken = false;
  /** Resolved, and replaced, each time the thread has answered every batch it was given. */
  private allAnswered = new Deferred<void>();

  constructor() {
    this.worker = new Worker(workerEntry());
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

  /**
   * Resolves once the thread has answered every batch it was given so far: the sockets it held are
   * released, and what waited for them (a close frame, say) has gone out after their frames.
   */
  answered(): Promise<void> {
    return this.posted.length === 0 ? Promise.resolve() : this.allAnswered.promise;
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
    const batchToWrite: BatchToWrite = { memory, writes, regions };
    this.worker.postMessage(batchToWrite, [writes.buffer as ArrayBuffer, regions.buffer as ArrayBuffer]);
  }

  /** The thread wrote a batch (batches are answered in the order they were posted). */
  settle(answer: WrittenBatch): void {
    const batch = this.posted.shift();
    if (!batch) return;
    for (const [i, { hold, parts, written }] of batch.writes.entries())
      hold.release(restAfter(parts, answer.taken[i] ?? 0), written);
    batch.settled();
    if (this.posted.length === 0) this.idle();
  }

  private idle(): void {
    this.worker.unref();
    this.allAnswered.resolve();
    this.allAnswered = new Deferred<void>();
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
    this.allAnswered.resolve();
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

/**
 * One publish's socket writes: each connection's frames are handed to the writer thread together in
 * `send`. A socket the thread cannot write to directly (a TLS socket, one with bytes still queued on its
 * stream, one with no descriptor) and memory the thread cannot read are written at once as before (see
 * writePartsToSocket).
 */
export class SocketWrites implements FrameWrites {
  private readonly writes: HeldWrite[] = [];
  /** Each write's descriptor and number of regions, and each region's memory, offset and length. */
  private readonly descriptorsAndCounts: number[] = [];
  private readonly regions: number[] = [];
  private readonly memory: SharedArrayBuffer[] = [];

  private readonly done = new Deferred<void>();
  /** Resolves once the writes are made (the writer thread is done with their memory). */
  readonly written = this.done.promise;

  constructor(private readonly thread: WriterThread) {
    keepShapeOf("writes", this);
  }

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
