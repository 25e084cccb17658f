// The writer thread's own code (see WriterThread in writer-thread.ts). Each message is one publish's
// writes, each a descriptor and the regions of shared memory to write to it in one system call; the
// reply says how many bytes the kernel took of each (0 when it took none: a full buffer or a closed
// connection, which the socket's stream then reports).

import { writeSync, writevSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parentPort } from "node:worker_threads";
import { putLaterThreadsBehindTheTick } from "../tuning/helper-threads.js";

/** One publish's writes, as WriterThread.post sends them. */
export interface BatchToWrite {
  readonly memory: readonly SharedArrayBuffer[];
  /** Each write's descriptor and how many regions it has. */
  readonly writes: Int32Array;
  /** Each region's index in `memory`, offset and length, write after write. */
  readonly regions: Int32Array;
}

/** What the writer thread answers for one batch. */
export interface WrittenBatch {
  /** Bytes the kernel took of each write, in the batch's order. */
  readonly taken: Int32Array;
  /** How long the thread took to write the batch. */
  readonly ms: number;
}

/** Writes a batch, one write(2) or writev(2) per descriptor. */
export function writeBatch({ memory, writes, regions }: BatchToWrite): WrittenBatch {
  const started = performance.now();
  const views = memory.map((shared) => new Uint8Array(shared));
  const taken = new Int32Array(writes.length / 2);
  let region = 0;
  for (let i = 0; i < taken.length; i++) {
    const descriptor = writes[2 * i]!;
    const count = writes[2 * i + 1]!;
    const parts: Uint8Array[] = [];
    for (let end = region + count; region < end; region++) {
      const start = regions[3 * region + 1]!;
      parts.push(views[regions[3 * region]!]!.subarray(start, start + regions[3 * region + 2]!));
    }
    try {
      taken[i] = count === 1 ? writeSync(descriptor, parts[0]!) : writevSync(descriptor, parts);
    } catch {
      taken[i] = 0;
    }
  }
  return { taken, ms: performance.now() - started };
}

const port = parentPort;
if (port) putLaterThreadsBehindTheTick();
port?.on("message", (batch: BatchToWrite) => {
  const written = writeBatch(batch);
  port.postMessage(written, [written.taken.buffer as ArrayBuffer]);
});
