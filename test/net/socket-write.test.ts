import assert from "node:assert/strict";
import { Duplex, PassThrough } from "node:stream";
import { writePartsToSocket, writeToSocket } from "../../src/net/socket-write.js";
import { connectedPair, readExactly, sequence } from "../support/tcp.js";

describe("writeToSocket", () => {
  it("hands the bytes to the kernel at once, calls back, and leaves nothing on the stream", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const bytes = sequence(0, 5000);
      let calledBack = false;
      const held = writeToSocket(writer, bytes, () => {
        calledBack = true;
      });
      assert.equal(held, false);
      assert.equal(writer.writableLength, 0);
      assert.deepEqual(await readExactly(reader, bytes.length), bytes);
      assert.equal(calledBack, true);
    } finally {
      close();
    }
  });

  it("keeps the order of everything written while the stream drains what the kernel could not take", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      reader.pause();
      const pieces: Buffer[] = [];
      let calledBack = 0;
      const write = () => {
        const piece = sequence(pieces.length * 7, 64 * 1024);
        pieces.push(piece);
        return writeToSocket(writer, piece, () => calledBack++);
      };
      // More than the kernel buffers for a connection that is not read: the stream queues the rest.
      while (!write()) if (pieces.length > 1000) assert.fail("the kernel took 64 MB without a reader");
      for (let i = 0; i < 8; i++) write();
      // While the far end reads, the kernel keeps finding room for what the stream still queues.
      const expectedLength = (pieces.length + 200) * 64 * 1024;
      const received = readExactly(reader, expectedLength);
      for (let i = 0; i < 200; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        write();
      }
      assert.deepEqual(await received, Buffer.concat(pieces));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(calledBack, pieces.length);
    } finally {
      close();
    }
  });

  it("reports a connection the far end reset through the socket, without throwing", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const closed = new Promise((resolve) => writer.once("close", resolve));
      const errors: string[] = [];
      writer.on("error", (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
      reader.resetAndDestroy();
      // The first write after a reset may still be taken by the kernel; a later one fails.
      for (let i = 0; i < 5 && !writer.destroyed; i++) {
        writeToSocket(writer, sequence(0, 1000));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await closed;
      assert.ok(writer.destroyed, "the socket closed");
      for (const code of errors) assert.match(code, /^(ECONNRESET|EPIPE)$/);
    } finally {
      close();
    }
  });

  it("writes through the stream where there is no descriptor of its own", async () => {
    const stream = new PassThrough();
    const bytes = sequence(3, 100);
    let calledBack = false;
    writeToSocket(stream, bytes, () => {
      calledBack = true;
    });
    assert.deepEqual(stream.read(), bytes);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calledBack, true);
  });
});

describe("writePartsToSocket", () => {
  it("writes parts through a stream without a descriptor in one write, in order, calling back once", async () => {
    const writes: Buffer[][] = [];
    const stream = new Duplex({
      read() {},
      writev(chunks, callback) {
        writes.push(chunks.map(({ chunk }) => chunk as Buffer));
        callback();
      },
    });
    const parts = [sequence(0, 10), sequence(20, 300), sequence(7, 5)];
    let calledBack = 0;
    const held = writePartsToSocket(stream, parts, () => calledBack++);
    assert.equal(writes.length, 1, "one write of all the parts");
    assert.deepEqual(Buffer.concat(writes[0]!), Buffer.concat(parts));
    assert.equal(held, false, "nothing left on the stream");
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calledBack, 1);
  });

  it("says the stream holds the parts while it does", () => {
    const stream = new Duplex({ read() {}, writev() {} });
    assert.equal(writePartsToSocket(stream, [sequence(0, 10), sequence(1, 10)]), true);
  });

  it("puts the parts together for a socket with a descriptor", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const parts = [sequence(0, 1000), sequence(40, 20)];
      assert.equal(writePartsToSocket(writer, parts), false, "its own copy, if any of it waits");
      assert.deepEqual(await readExactly(reader, 1020), Buffer.concat(parts));
    } finally {
      close();
    }
  });
});
