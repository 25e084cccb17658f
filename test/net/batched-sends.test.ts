import assert from "node:assert/strict";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import type { AddressInfo } from "node:net";
import { type Client, ClientState } from "@colyseus/core";
import { WebSocketClient } from "@colyseus/ws-transport";
import { WebSocket, WebSocketServer } from "ws";
import { createOutbox } from "../../src/net/outbox.js";
import { WriterThread } from "../../src/net/writer-thread.js";

/** An SDK client as the room sees it (Colyseus's own WebSocketClient) and what its far end receives. */
interface Connection {
  client: Client;
  /** The server's end's descriptor. */
  fd: number;
  /**
   * The server's end of the socket: its writes are counted, through its stream, to its descriptor, or
   * handed to the writer thread.
   */
  writes: () => number;
  received: Buffer[];
  /** Whether each received frame was binary, in the order of `received`. */
  binary: boolean[];
  far: WebSocket;
}

describe("the thread path's batch: an SDK client's frames of a publish", () => {
  const outbox = createOutbox("thread");
  let server: WebSocketServer;
  const connections: Connection[] = [];

  /** Counters of the writes made straight to a socket's descriptor, by descriptor. */
  const descriptorWrites = new Map<number, () => void>();
  const writeSync = fs.writeSync;
  const post = WriterThread.prototype.post;

  /** The regions of each write handed to the writer thread (memory, offset, length), by descriptor. */
  const postedRegions = new Map<number, number[][]>();

  before(async () => {
    WriterThread.prototype.post = function (this: WriterThread, ...args: Parameters<typeof post>) {
      const [, , writes, regions] = args;
      let region = 0;
      for (let i = 0; i < writes.length; i += 2) {
        const [fd, count] = [writes[i]!, writes[i + 1]!];
        descriptorWrites.get(fd)?.();
        const listed: number[][] = [];
        for (let end = region + count; region < end; region++) {
          listed.push([...regions.subarray(3 * region, 3 * region + 3)]);
        }
        postedRegions.set(fd, listed);
      }
      post.apply(this, args);
    };
    fs.writeSync = ((fd: number, ...rest: unknown[]) => {
      descriptorWrites.get(fd)?.();
      return (writeSync as (...args: unknown[]) => number)(fd, ...rest);
    }) as typeof fs.writeSync;
    syncBuiltinESMExports();
    server = new WebSocketServer({ port: 0, host: "127.0.0.1", perMessageDeflate: false });
    await new Promise((resolve) => server.once("listening", resolve));
  });
  afterEach(() => {
    for (const { far } of connections.splice(0)) far.terminate();
  });
  after(async () => {
    await outbox.close();
    WriterThread.prototype.post = post;
    fs.writeSync = writeSync;
    syncBuiltinESMExports();
    descriptorWrites.clear();
    await new Promise((resolve) => server.close(resolve));
  });

  async function connect(): Promise<Connection> {
    const accepted = new Promise<WebSocket>((resolve) => server.once("connection", resolve));
    const far = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const received: Buffer[] = [];
    const binary: boolean[] = [];
    far.on("message", (data: Buffer, isBinary) => {
      received.push(Buffer.from(data));
      binary.push(isBinary);
    });
    await new Promise((resolve) => far.once("open", resolve));
    const ws = await accepted;
    const tcp = (
      ws as unknown as { _socket: { write: (...args: unknown[]) => boolean; _handle: { fd: number } } }
    )._socket;
    let writes = 0;
    const write = tcp.write.bind(tcp);
    tcp.write = (...args) => {
      writes++;
      return write(...args);
    };
    descriptorWrites.set(tcp._handle.fd, () => writes++);
    const client = new WebSocketClient("session", ws) as unknown as Client;
    client.state = ClientState.JOINED;
    const connection = { client, fd: tcp._handle.fd, writes: () => writes, received, binary, far };
    connections.push(connection);
    return connection;
  }

  /** Waits for `count` frames, then checks every frame that arrived is binary, as Colyseus's are. */
  const arrived = async (connection: Connection, count: number) => {
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 5000;
      const poll = () => {
        if (connection.received.length >= count) resolve();
        else if (Date.now() > deadline)
          reject(new Error(`${connection.received.length} of ${count} arrived`));
        else setTimeout(poll, 5);
      };
      poll();
    });
    assert.deepEqual(
      connection.binary,
      connection.received.map(() => true),
      "Colyseus frames are binary",
    );
  };

  it("writes them in one write, each frame intact and in order, whatever its length", async () => {
    const connection = await connect();
    // Lengths around each size of frame header: 1, 3 and 9 bytes of length.
    const payloads = [0, 1, 125, 126, 65535, 65536, 70000].map((length, i) => Buffer.alloc(length, i + 1));
    let sentCallbacks = 0;
    const written = outbox
      .batch([connection.client], () => {
        for (const payload of payloads) connection.client.enqueueRaw(payload);
        connection.client.raw(Buffer.from([42]), undefined, () => sentCallbacks++);
      })
      .send();
    assert.equal(connection.writes(), 1);
    await arrived(connection, payloads.length + 1);
    assert.deepEqual(connection.received, [...payloads, Buffer.from([42])]);
    // The far end may read the frames before the writer thread's answer reaches this thread.
    await written;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sentCallbacks, 1, "a sender's callback is called once its frame is written");
  });

  it("frames a message sent to many clients once, and writes it to each of them from there", async () => {
    const [one, other] = [await connect(), await connect()];
    // As a world:update's or an event's room message: one buffer for every client it is sent to.
    const update = Buffer.alloc(3000, 7);
    const own = [Buffer.from("one's own"), Buffer.from("other's own")];
    postedRegions.clear();
    await outbox
      .batch([one.client, other.client], () => {
        one.client.enqueueRaw(update);
        other.client.enqueueRaw(update);
        one.client.enqueueRaw(own[0]!);
        other.client.enqueueRaw(own[1]!);
      })
      .send();
    await arrived(one, 2);
    await arrived(other, 2);
    assert.deepEqual(one.received, [update, own[0]]);
    assert.deepEqual(other.received, [update, own[1]]);
    const [oneUpdate, oneOwn] = postedRegions.get(one.fd) ?? [];
    const [otherUpdate, otherOwn] = postedRegions.get(other.fd) ?? [];
    assert.deepEqual(otherUpdate, oneUpdate, "the same framed bytes");
    assert.notDeepEqual(otherOwn, oneOwn);
  });

  it("leaves the client to send on its own after the publish", async () => {
    const connection = await connect();
    outbox.batch([connection.client], () => connection.client.enqueueRaw(Buffer.from("held"))).send();
    connection.client.enqueueRaw(Buffer.from("alone"));
    await arrived(connection, 2);
    assert.deepEqual(connection.received.map(String), ["held", "alone"]);
  });

  it("drops what was held for a connection that closed meanwhile, and writes the others'", async () => {
    const [closing, staying] = [await connect(), await connect()];
    const closed = new Promise((resolve) => closing.far.once("close", resolve));
    const refusals: (Error | undefined)[] = [];
    outbox
      .batch([closing.client, staying.client], () => {
        closing.client.enqueueRaw(Buffer.from("lost"));
        closing.client.raw(Buffer.from("lost too"), undefined, (error) => refusals.push(error));
        closing.client.leave(1000);
        staying.client.enqueueRaw(Buffer.from("kept"));
      })
      .send();
    await arrived(staying, 1);
    assert.deepEqual(staying.received.map(String), ["kept"]);
    await closed;
    assert.deepEqual(closing.received, []);
    assert.equal(refusals.length, 1);
    assert.ok(refusals[0] instanceof Error, "a sender that asked is told its frame was not sent");
  });
});
