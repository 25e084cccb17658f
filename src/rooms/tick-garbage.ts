import v8 from "node:v8";
import { exposedGc } from "../tuning/exposed-gc.js";

/**
 * Growth of the heap since its last full collection, as a fraction of what that collection left,
 * beyond which the room collects it fully itself. With `--heap-growing-percent=100` V8 starts marking
 * on its own at about 1.9 times what the last full collection left (bench/views.ts,
 * --trace-incremental-marking): this stays below that by a few ticks' growth at 2,000 players. Not
 * much lower: a full collection made here costs more than its pause, as V8 compiles some of the
 * tick's functions again after it (at 1.5 times, the views bench's tick p50 rose by about 1 ms).
 */
const FULL_COLLECTION_GROWTH = 0.7;

/**
 * When to collect the whole heap between ticks. Left to V8, a full collection marks incrementally: in
 * small steps taken while the code allocates, which is during ticks. At 2,000 players those steps took
 * 20 to 30 ms every 25 to 45 ticks, spread over two or three of them: those ticks were the slowest
 * (bench/views.ts: tick p99 40 to 47 ms, against 28 to 33 ms collecting here). Collected after a
 * publish, the same work falls in the idle part of the tick period, where it holds nothing up.
 */
export class FullCollections {
  /** The heap's size after its last full collection (0: not known yet). */
  private baseline = 0;

  constructor(
    private readonly heapUsed: () => number,
    private readonly collectFully: () => void,
    private readonly growth = FULL_COLLECTION_GROWTH,
  ) {}

  /** After a tick's young generation is emptied: collects everything if the heap has grown enough. */
  afterTick(): void {
    const used = this.heapUsed();
    // Smaller than it was: V8 collected fully on its own meanwhile (or this is the first tick).
    if (this.baseline === 0 || used < this.baseline) {
      this.baseline = used;
      return;
    }
    if (used <= this.baseline * (1 + this.growth)) return;
    this.collectFully();
    this.baseline = this.heapUsed();
  }
}

const fullCollections =
  exposedGc &&
  new FullCollections(
    () => v8.getHeapStatistics().used_heap_size,
    () => exposedGc?.(),
  );

/**
 * Empties the young generation once a tick's frames are written, in the idle part of the tick period:
 * the next tick starts with room for everything it allocates, so no collection pauses it. On one core
 * the writer thread's writes go first, and the players get their frames sooner (at 1,000 players in
 * bench/world.ts, a publish's last write came 10 / 21 ms after its hand-over at p50 / p99, against 15 /
 * 77 with the collection first). At 2,000 players this took the collections inside ticks from 2 or 3 in
 * 40 s to none, for about half as much collection time again outside them (bench/world.ts). Waiting
 * until the young generation was nearly full (collecting less often) left as many inside ticks as not
 * collecting at all: Buffers' external memory starts collections of its own. The old generation is
 * collected there too, before V8 would start marking it during ticks (see FullCollections).
 */
export function collectTickGarbage(): void {
  exposedGc?.({ type: "minor" });
  fullCollections?.afterTick();
}
