import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { SocketWrites, WriterThread } from "../../src/net/writer-thread.js";
import { runToExit } from "../support/processes.js";
import { connectedPair, readExactly, sequence } from "../support/tcp.js";

/** `bytes` in memory the writer thread can read, as the world's publishes frame them. */
function shared(bytes: Buffer): Buffer {
  const memory = Buffer.from(new SharedArrayBuffer(bytes.length));
  bytes.copy(memory);
  return memory;
}

/** Everything the reader receives until the far end ends the connection. */
async function readToEnd(reader: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of reader) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("the writer thread's socket writes", () => {
  let thread: WriterThread;
  before(() => {
    thread = new WriterThread();
  });
  after(() => thread.stop());

  it("writes each socket's bytes, calls back, and leaves nothing on the streams", async () => {
    const first = await connectedPair();
    const second = await connectedPair();
    try {
      const writes = new SocketWrites(thread);
      const calledBack: string[] = [];
      const one = sequence(0, 5000);
      const other = sequence(9, 3000);
      assert.equal(
        writes.add(first.writer, [shared(one)], () => calledBack.push("one")),
        false,
      );
      writes.add(second.writer, [shared(other)], () => calledBack.push("other"));
      await writes.send();
      assert.deepEqual(await readExactly(first.reader, one.length), one);
      assert.deepEqual(await readExactly(second.reader, other.length), other);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(calledBack.sort(), ["one", "other"]);
      assert.equal(first.writer.writableLength + second.writer.writableLength, 0);
    } finally {
      first.close();
      second.close();
    }
  });

  it("writes a write's parts one after the other, from their own memory", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const writes = new SocketWrites(thread);
      // As a client's view update and the events of its cell, framed once for many clients, and its own.
      const update = shared(sequence(0, 3000));
      const around = shared(sequence(40, 700));
      const own = shared(sequence(90, 120));
      writes.add(writer, [update, around, own]);
      await writes.send();
      assert.deepEqual(await readExactly(reader, 3820), Buffer.concat([update, around, own]));
    } finally {
      close();
    }
  });

  it("writes a write of more parts than one system call takes", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const writes = new SocketWrites(thread);
      // Linux's writev takes at most 1,024 parts at a time (IOV_MAX).
      const parts = Array.from({ length: 3000 }, (_, i) => shared(sequence(i, 1 + (i % 7))));
      writes.add(writer, parts);
      await writes.send();
      const all = Buffer.concat(parts);
      assert.deepEqual(await readExactly(reader, all.length), all);
    } finally {
      close();
    }
  });

  it("keeps what is written and the end of the connection behind a write the thread has not made yet", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const writes = new SocketWrites(thread);
      const tick = sequence(0, 20_000);
      const after = sequence(100, 500);
      writes.add(writer, [shared(tick)]);
      // As `ws` writes a pong or a close frame between ticks, and ends the connection.
      writer.write(after);
      writer.end();
      const received = readToEnd(reader);
      await writes.send();
      assert.deepEqual(await received, Buffer.concat([tick, after]));
    } finally {
      close();
    }
  });

  it("tells when it has made every write it was given, and what waited behind them", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      await thread.answered();
      const writes = new SocketWrites(thread);
      const tick = sequence(3, 4000);
      // As a room's close frame, written as the server shuts down, waits behind the tick's frames.
      const closeFrame = sequence(60, 40);
      writes.add(writer, [shared(tick)]);
      writer.write(closeFrame);
      const sent = writes.send();
      const answered = thread.answered();
      assert.equal(writer.bytesWritten, 0, "the close frame waits for the thread");
      await answered;
      assert.equal(
        writer.bytesWritten,
        closeFrame.length,
        "the close frame went out once the thread answered",
      );
      await sent;
      assert.deepEqual(
        await readExactly(reader, tick.length + closeFrame.length),
        Buffer.concat([tick, closeFrame]),
      );
    } finally {
      close();
    }
  });

  it("does not close a socket the thread is still to write to", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const writes = new SocketWrites(thread);
      const tick = sequence(7, 10_000);
      writes.add(writer, [shared(tick)]);
      const closed = once(writer, "close");
      // Closed at once, its descriptor could be another connection's by the time the thread writes.
      writer.destroy();
      const received = readToEnd(reader);
      await writes.send();
      await closed;
      assert.deepEqual(await received, tick);
    } finally {
      close();
    }
  });

  it("reads nothing more from a socket closed while the thread is still to write to it", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const writes = new SocketWrites(thread);
      const tick = sequence(3, 1_000);
      writes.add(writer, [shared(tick)]);
      const closed = once(writer, "close");
      writer.destroy();
      // The peer's bytes (here as long as a client's empty close frame) reach a socket whose stream is
      // destroyed while its close waits: read then, Node throws out of the event loop and the process ends.
      reader.write(sequence(9, 6));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const received = readToEnd(reader).catch((error: NodeJS.ErrnoException) => error.code);
      await writes.send();
      await closed;
      // Closed with the peer's bytes unread, the connection ends in a reset (TCP's rule) or, the tick's
      // bytes read first, in its end.
      const got = await received;
      assert.ok(got === "ECONNRESET" || (Buffer.isBuffer(got) && got.equals(tick)), `received ${got}`);
    } finally {
      close();
    }
  });

  it("writes what the kernel could not take through the stream, ahead of what was written meanwhile", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      reader.pause();
      const writes = new SocketWrites(thread);
      // Far more than the kernel buffers for a connection nobody reads.
      const tick = sequence(3, 32 * 1024 * 1024);
      const after = sequence(11, 1000);
      // In parts: the kernel stops within one of them, and the rest starts there.
      const parts = [0, 5_000_000, 5_000_123, 20_000_000, tick.length];
      writes.add(
        writer,
        parts.slice(1).map((end, i) => shared(tick.subarray(parts[i], end))),
      );
      writer.write(after);
      await writes.send();
      assert.ok(writer.writableLength > 0, "the rest waits on the stream");
      assert.deepEqual(await readExactly(reader, tick.length + after.length), Buffer.concat([tick, after]));
    } finally {
      close();
    }
  });

  it("writes a socket's next publish after the one the thread is still writing", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      reader.pause();
      const first = new SocketWrites(thread);
      const second = new SocketWrites(thread);
      // The first is more than the kernel takes: the rest of it waits on the stream.
      const one = sequence(0, 32 * 1024 * 1024);
      const two = sequence(50, 8000);
      first.add(writer, [shared(one)]);
      const firstSent = first.send();
      second.add(writer, [shared(two)]);
      await Promise.all([firstSent, second.send()]);
      writer.end();
      assert.deepEqual(await readToEnd(reader), Buffer.concat([one, two]));
    } finally {
      close();
    }
  });

  it("writes memory the thread cannot read at once", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const writes = new SocketWrites(thread);
      const bytes = sequence(1, 2000);
      const shareable = sequence(77, 300);
      writes.add(writer, [shared(shareable), bytes]);
      const all = Buffer.concat([shareable, bytes]);
      assert.deepEqual(await readExactly(reader, all.length), all, "written before the batch is sent");
      await writes.send();
    } finally {
      close();
    }
  });

  it("closes the connections a stopped thread was writing to, which never get a byte twice", async () => {
    const { writer, reader, close } = await connectedPair();
    const thread = new WriterThread();
    try {
      const writes = new SocketWrites(thread);
      const tick = sequence(5, 200_000);
      let refusal: Error | null | undefined;
      writes.add(writer, [shared(tick)], (error) => {
        refusal = error;
      });
      const received = readToEnd(reader).catch(() => Buffer.alloc(0));
      const sent = writes.send();
      // Stopped while, or before, it writes: how much it wrote is not known.
      await thread.stop();
      await sent;
      assert.ok(writer.destroyed, "the connection is closed");
      assert.match(String(refusal), /writer thread stopped/);
      const got = await received;
      assert.deepEqual(got, tick.subarray(0, got.length), "what arrived is the start of the frames, once");
      assert.equal(
        new SocketWrites(thread).add(writer, [shared(tick)]),
        false,
        "later writes go their own way",
      );
    } finally {
      close();
    }
  });

  it("closes a socket whose closing waited for a thread that then stopped", async () => {
    const { writer, close } = await connectedPair();
    const thread = new WriterThread();
    try {
      const writes = new SocketWrites(thread);
      writes.add(writer, [shared(sequence(0, 1000))]);
      const closed = once(writer, "close");
      writer.destroy();
      const sent = writes.send();
      await thread.stop();
      await sent;
      await closed;
    } finally {
      close();
    }
  });

  it("lets its process end once it has written what it was given", async function () {
    this.timeout(20_000);
    const dir = mkdtempSync(path.join(os.tmpdir(), "writer-thread-"));
    try {
      const script = path.join(dir, "idle.mjs");
      const module = pathToFileURL(path.resolve("src/net/writer-thread.ts")).href;
      writeFileSync(
        script,
        `import { connect, createServer } from "node:net";
        import { SocketWrites, WriterThread } from ${JSON.stringify(module)};
        const server = createServer((socket) => socket.resume()).listen(0, "127.0.0.1");
        await new Promise((resolve) => server.once("listening", resolve));
        const socket = connect(server.address().port, "127.0.0.1");
        await new Promise((resolve) => socket.once("connect", resolve));
        const writes = new SocketWrites(new WriterThread());
        const bytes = Buffer.from(new SharedArrayBuffer(100));
        writes.add(socket, [bytes]);
        await writes.send();
        socket.destroy();
        server.close();
        setTimeout(() => { console.error("still running"); process.exit(7); }, 8000).unref();`,
      );
      const { code, stderr } = await runToExit({}, [script]);
      assert.equal(code, 0, stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
