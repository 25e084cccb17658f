import {
  FramedBytes,
  framesLength,
  headerBytes,
  MAX_HEADER_BYTES,
  type OutgoingMessage,
  writeFrames,
  writeHeader,
} from "./frames.js";

const CHUNK_BYTES = 1 << 20;

/** Memory the writer thread can read as it is (see src/ws/writer-thread.ts). */
function sharedBuffer(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}

/**
 * Memory for the frames a tick writes, used again from tick to tick: a crowded world writes megabytes
 * of frames every tick, and as many fresh buffers would keep the garbage collector busy. What many
 * clients are sent alike is framed once and written to each of them from the same memory. The memory
 * is shared with the writer thread, which writes a publish's frames after it; a publish's chunks are
 * used again once that is done. A region a socket's stream could not take at once stays queued on it;
 * its chunk is then dropped rather than reused. Frames are made on one thread, one publish at a time.
 */
export class WriteSlab {
  /** The chunk regions are taken from, and where its free part starts. */
  private chunk: Buffer | undefined;
  private offset = 0;
  /** The chunks this publish took regions from. */
  private used: Buffer[] = [];
  /** Chunks free for the next publishes. */
  private readonly spare: Buffer[] = [];
  private readonly queued = new Set<ArrayBufferLike>();
  /** Counts the publishes: a region taken in an earlier one may be written over now. */
  private publishes = 0;

  /** A region of `size` bytes, this tick's to fill and write. */
  take(size: number): Buffer {
    if (size > CHUNK_BYTES / 4) return sharedBuffer(size);
    if (!this.chunk || this.offset + size > CHUNK_BYTES) {
      this.chunk = this.spare.pop() ?? sharedBuffer(CHUNK_BYTES);
      this.used.push(this.chunk);
      this.offset = 0;
    }
    const region = this.chunk.subarray(this.offset, this.offset + size);
    this.offset += size;
    return region;
  }

  /** Which publish regions are taken for now (see `reset`). */
  get publish(): number {
    return this.publishes;
  }

  /**
   * One text frame whose payload is `prefix`, `text` as UTF-8 and `suffix`, written into a region
   * straight from the string: the text needs no buffer of its own, and no copy into a frame later.
   */
  textFrame(prefix: Buffer, text: string, suffix: Buffer): FramedBytes {
    // UTF-8 takes at most 3 bytes for each UTF-16 unit. The payload is written first, after room for the
    // longest header, and the header then goes right before it, as long as the payload turned out.
    const most = MAX_HEADER_BYTES + prefix.length + 3 * text.length + suffix.length;
    const region = this.take(most);
    let end = MAX_HEADER_BYTES;
    region.set(prefix, end);
    end += prefix.length;
    end += region.write(text, end);
    region.set(suffix, end);
    end += suffix.length;
    const payload = end - MAX_HEADER_BYTES;
    const start = MAX_HEADER_BYTES - headerBytes(payload);
    writeHeader(region, start, payload);
    if (region.buffer === this.chunk?.buffer) this.offset -= most - end;
    return new FramedBytes(region.subarray(start, end));
  }

  /**
   * `messages` as the regions to write one after the other: frames made earlier (a view update or the
   * events of a cell, made once for all the clients that see them) as they are, without a copy; the
   * messages between them framed together into a region of their own.
   */
  regions(messages: readonly OutgoingMessage[]): Buffer[] {
    const regions: Buffer[] = [];
    let unframed = 0;
    for (let i = 0; i <= messages.length; i++) {
      const message = messages[i];
      if (i < messages.length && !(message instanceof FramedBytes)) continue;
      if (unframed < i) {
        const run = messages.slice(unframed, i);
        regions.push(writeFrames(run, this.take(framesLength(run))));
      }
      if (message instanceof FramedBytes) regions.push(message.bytes);
      unframed = i + 1;
    }
    return regions;
  }

  /** The region is still queued on a socket: its chunk must not be written over. */
  keep(region: Buffer): void {
    this.queued.add(region.buffer);
  }

  /**
   * A publish is over: the regions it took are free again once `written` resolves (the writer thread is
   * done with them), except in the chunks kept for writes queued on a stream.
   */
  reset(written?: Promise<void>): void {
    const free = this.used.filter((chunk) => !this.queued.has(chunk.buffer));
    const giveBack = () => this.spare.push(...free);
    if (written) void written.then(giveBack);
    else giveBack();
    this.used = [];
    this.chunk = undefined;
    this.queued.clear();
    this.publishes++;
  }
}
