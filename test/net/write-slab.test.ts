import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { FramedBytes } from "../../src/net/frames.js";
import { StreamWrites } from "../../src/net/stream-writes.js";
import { WriteSlab } from "../../src/net/write-slab.js";
import { SocketWrites, WriterThread } from "../../src/net/writer-thread.js";
import { EncodedJson } from "../../src/protocol/encoded-json.js";
import { JsonClient } from "../../src/protocol/json-client.js";

describe("WriteSlab", () => {
  it("hands out separate regions within a tick and the same memory again the next tick", () => {
    const slab = new WriteSlab();
    const first = slab.take(100).fill(1);
    const second = slab.take(100).fill(2);
    assert.ok(
      first.every((byte) => byte === 1),
      "regions of one tick do not overlap",
    );
    assert.equal(second.length, 100);
    slab.reset();
    const again = slab.take(100);
    assert.equal(again.buffer, first.buffer);
    assert.equal(again.byteOffset, first.byteOffset);
  });

  it("never writes over a region still queued on a socket", () => {
    const slab = new WriteSlab();
    const queued = slab.take(100).fill(7);
    slab.keep(queued);
    slab.reset();
    for (let i = 0; i < 100; i++) slab.take(10_000).fill(0);
    assert.ok(queued.every((byte) => byte === 7));
  });

  it("takes a publish's memory again only once its writes are done with it", async () => {
    const slab = new WriteSlab();
    const first = slab.take(100);
    let written!: () => void;
    slab.reset(new Promise<void>((resolve) => (written = resolve)));
    const meanwhile = slab.take(100);
    assert.notEqual(meanwhile.buffer, first.buffer, "the writer thread may still be reading it");
    slab.reset();
    written();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(slab.take(100).buffer, first.buffer, "given back once written");
  });

  it("lists frames made for many clients as they are, and frames the messages between them", () => {
    const slab = new WriteSlab();
    const update = EncodedJson.of({ tick: 1, added: [], updated: [], removed: [] }).framedIn(
      slab,
      "world:update",
    );
    const around = new FramedBytes(Buffer.from([0x81, 2, 0x7b, 0x7d]));
    const sync = [Buffer.from('{"event":"player:sync","data":{}}')];
    const xp = [Buffer.from('{"event":"skill:xp","data":{}}')];

    const shared = slab.regions([update, around]);
    assert.equal(shared.length, 2);
    assert.equal(shared[0], update.bytes, "the update's own memory, not a copy");
    assert.equal(shared[1], around.bytes);
    const own = slab.regions([update, sync, xp, around, sync]);
    assert.equal(own.length, 4, "the update, its own two messages together, the events, its last message");
    assert.equal(own[0], update.bytes);
    assert.equal(own[2], around.bytes);
    const framedText = (region: Buffer) => {
      const texts: string[] = [];
      for (let at = 0; at < region.length; at += 2 + region[at + 1]!) {
        assert.equal(region[at], 0x81, "a final text frame");
        texts.push(region.subarray(at + 2, at + 2 + region[at + 1]!).toString());
      }
      return texts;
    };
    assert.deepEqual(framedText(own[1]!), [sync[0]!.toString(), xp[0]!.toString()]);
    assert.deepEqual(framedText(own[3]!), [sync[0]!.toString()]);
    assert.ok(own[1]!.buffer instanceof SharedArrayBuffer, "in memory the writer thread reads");
    assert.deepEqual(slab.regions([]), []);
  });

  /** The payload of the one text frame in `bytes`, checking that it is exactly one whole frame. */
  function payloadOf(bytes: Buffer): string {
    assert.equal(bytes[0], 0x81, "a final text frame");
    const short = bytes[1]!;
    const [length, start] =
      short < 126
        ? [short, 2]
        : short === 126
          ? [bytes.readUInt16BE(2), 4]
          : [Number(bytes.readBigUInt64BE(2)), 10];
    assert.equal(bytes.length, start + length, "the frame is as long as its header says");
    return bytes.subarray(start).toString();
  }

  it("frames text of any length and characters straight into its memory", () => {
    const slab = new WriteSlab();
    // Around each header size, and text whose UTF-8 is longer than its length in characters.
    for (const text of [
      "",
      "x".repeat(120),
      "x".repeat(123),
      "é".repeat(62),
      "x".repeat(65_530),
      "ü€😀".repeat(30_000),
    ]) {
      const frame = slab.textFrame(Buffer.from("<"), text, Buffer.from(">"));
      assert.equal(payloadOf(frame.bytes), `<${text}>`);
    }
  });

  it("takes no more of its memory for a text frame than the frame", () => {
    const slab = new WriteSlab();
    const frame = slab.textFrame(Buffer.alloc(0), "x".repeat(1000), Buffer.alloc(0));
    const next = slab.take(10);
    assert.equal(next.buffer, frame.bytes.buffer);
    assert.equal(next.byteOffset, frame.bytes.byteOffset + frame.bytes.length);
  });

  it("frames an encoded event once per publish, and anew in the next one", () => {
    const slab = new WriteSlab();
    const update = EncodedJson.of({ tick: 1, added: [], updated: [], removed: ["a"] });
    const first = update.framedIn(slab, "world:update");
    assert.equal(update.framedIn(slab, "world:update"), first, "one frame for every client of a publish");
    assert.deepEqual(JSON.parse(payloadOf(first.bytes)), {
      event: "world:update",
      data: { tick: 1, added: [], updated: [], removed: ["a"] },
    });
    slab.reset();
    slab.take(first.bytes.length).fill(0);
    const again = update.framedIn(slab, "world:update");
    assert.notEqual(again, first, "the last publish's memory is not trusted");
    assert.deepEqual(JSON.parse(payloadOf(again.bytes)).data.removed, ["a"]);
  });

  it("gives large writes memory of their own", () => {
    const slab = new WriteSlab();
    const small = slab.take(10);
    const large = slab.take(600_000);
    assert.notEqual(large.buffer, small.buffer);
    assert.equal(large.length, 600_000);
  });
});

describe("JsonClient's tick writes", () => {
  const thread = new WriterThread();
  after(() => thread.stop());

  for (const [path, newWrites] of [
    ["thread", () => new SocketWrites(thread)],
    ["stream", () => new StreamWrites()],
  ] as const) {
    it(`leave a frame queued on a slow socket intact while later ticks write (${path} path)`, () => {
      // A socket that takes nothing: every write stays queued, as on a reader that fell behind.
      const queued: Buffer[] = [];
      const tcp = new Writable({ highWaterMark: 1, write: (chunk: Buffer) => void queued.push(chunk) });
      const ws = { readyState: 1, OPEN: 1, bufferedAmount: 0, send: () => {} };
      const client = new JsonClient("s1", ws as never, { maxBufferedBytes: 1 << 20, tcp: tcp as never });
      const slab = new WriteSlab();
      for (let tick = 0; tick < 3; tick++) {
        slab.reset();
        client.holdFrames(slab);
        client.sendJson("chat:message", { message: `tick ${tick}`.repeat(50) });
        client.flushFrames(newWrites());
      }
      // The first write is queued (its callback never ran); later ones wait in the stream's buffer.
      const first = queued[0]!;
      const text = first.subarray(2 + (first[1] === 126 ? 2 : 0)).toString();
      assert.deepEqual(JSON.parse(text), { event: "chat:message", data: { message: "tick 0".repeat(50) } });
    });
  }
});
