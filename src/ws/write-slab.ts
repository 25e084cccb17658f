import { type OutgoingMessage, writeFrames } from "./frames.js";

const CHUNK_BYTES = 1 << 20;
const NOTHING_MORE = Symbol("nothing more");

/**
 * Memory for the frames a tick writes, used again from tick to tick: a crowded world writes megabytes
 * of frames every tick, and as many fresh buffers would keep the garbage collector busy. What many
 * clients are sent alike is framed once and written to each of them from the same memory. A region a
 * socket could not take at once stays queued on it; its chunk is then dropped rather than reused.
 * Everything runs on one thread, and a tick's writes all happen before the next tick starts.
 */
export class WriteSlab {
  private chunks: (Buffer | undefined)[] = [];
  private readonly queued = new Set<ArrayBufferLike>();
  private current = 0;
  private offset = 0;
  /** This tick's framed messages by the (at most two) messages they hold, first then second. */
  private framedAlike = new Map<OutgoingMessage, Map<OutgoingMessage | typeof NOTHING_MORE, Buffer>>();

  /** A region of `size` bytes, this tick's to fill and write. */
  take(size: number): Buffer {
    if (size > CHUNK_BYTES / 4) return Buffer.allocUnsafe(size);
    if (this.offset + size > CHUNK_BYTES) {
      this.current++;
      this.offset = 0;
    }
    let chunk = this.chunks[this.current];
    if (!chunk) {
      chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      this.chunks[this.current] = chunk;
    }
    const region = chunk.subarray(this.offset, this.offset + size);
    this.offset += size;
    return region;
  }

  /**
   * `messages` framed into a region. Clients that hold the same messages (the same view update, the
   * same events around them, and nothing of their own) get the same region, framed once for them all.
   */
  framed(messages: readonly OutgoingMessage[], length: number): Buffer {
    if (messages.length > 2) return writeFrames(messages, this.take(length));
    const [first, second = NOTHING_MORE] = messages as [OutgoingMessage, OutgoingMessage?];
    let bySecond = this.framedAlike.get(first);
    if (!bySecond) {
      bySecond = new Map();
      this.framedAlike.set(first, bySecond);
    }
    let region = bySecond.get(second);
    if (!region) {
      region = writeFrames(messages, this.take(length));
      bySecond.set(second, region);
    }
    return region;
  }

  /** The region is still queued on a socket: its chunk must not be written over. */
  keep(region: Buffer): void {
    this.queued.add(region.buffer);
  }

  /** A publish is written: every region handed out is free again, except in the chunks kept for queued writes. */
  reset(): void {
    if (this.queued.size > 0) {
      this.chunks = this.chunks.map((chunk) => (chunk && this.queued.has(chunk.buffer) ? undefined : chunk));
      this.queued.clear();
    }
    this.current = 0;
    this.offset = 0;
    this.framedAlike = new Map();
  }
}
