import type { Socket } from "node:net";
import type { Client } from "@colyseus/core";
import { WebSocket } from "ws";
import { keepShapeOf } from "../kept-shapes.js";
import { binaryFramesLength, writeBinaryFrames } from "../ws/frames.js";
import { JsonClient } from "../ws/JsonClient.js";
import { closeIfSlowReader } from "../ws/slow-reader.js";
import { WriteSlab } from "../ws/write-slab.js";
import { SocketWrites } from "../ws/writer-thread.js";

/** Where a publish assembles each connection's frames: one thread, one publish at a time. */
const slab = new WriteSlab();

type RawSend = Client["raw"];

/**
 * An SDK client's Colyseus frames (its state patch, its messages), held for the length of a publish and
 * then framed by hand and written at once: `ws` would frame and write each of them on its own.
 */
class HeldSdkFrames {
  private readonly payloads: Uint8Array[] = [];
  private readonly sent: ((error?: Error) => void)[] = [];
  /** The client's own `raw`, put back by `write` (assigned, not deleted: deleting would slow the object down). */
  private readonly send: RawSend;

  constructor(
    private readonly client: Client,
    private readonly ws: WebSocket,
    private readonly socket: Socket,
  ) {
    // Everything Colyseus sends a client goes through its `raw`.
    this.send = client.raw;
    client.raw = (data, _options, cb) => {
      this.payloads.push(data);
      if (cb) this.sent.push(cb);
    };
  }

  write(writes: SocketWrites, framed: FramedPayloads): void {
    this.client.raw = this.send;
    if (this.payloads.length === 0) return;
    // A socket closing meanwhile takes no more frames: as `ws` does, their senders are told so.
    if (this.ws.readyState !== WebSocket.OPEN || this.socket.destroyed) {
      for (const cb of this.sent) cb(new Error("not sent: the connection is closing"));
      return;
    }
    const length = binaryFramesLength(this.payloads);
    if (closeIfSlowReader(this.ws, length)) {
      for (const cb of this.sent) cb(new Error("not sent: the client does not read what it is sent"));
      return;
    }
    const regions = this.payloads.map((payload) => framed.of(payload));
    const sent = this.sent;
    const done = (error?: Error | null) => {
      for (const cb of sent) cb(error ?? undefined);
    };
    if (writes.add(this.socket, regions, sent.length === 0 ? undefined : done))
      for (const region of regions) slab.keep(region);
  }
}

/**
 * Colyseus payloads framed in a publish, by payload: a world:update or an event's room message is one
 * buffer for all the SDK clients sent it (see EncodedJson.roomMessage), framed once and written to
 * each of them from there.
 */
class FramedPayloads {
  private readonly framed = new Map<Uint8Array, Buffer>();

  of(payload: Uint8Array): Buffer {
    let region = this.framed.get(payload);
    if (!region) {
      region = writeBinaryFrames([payload], slab.take(binaryFramesLength([payload])));
      this.framed.set(payload, region);
    }
    return region;
  }
}

/**
 * The clients of one publish, holding what they are sent until `flush`: a /ws client holds its frames,
 * an SDK client its Colyseus frames.
 */
export class SendBatch {
  private readonly held: JsonClient[] = [];
  private readonly sdk: HeldSdkFrames[] = [];

  constructor(clients: Iterable<Client>) {
    keepShapeOf("batch", this);
    for (const client of clients) {
      if (client instanceof JsonClient) {
        client.hold(slab);
        this.held.push(client);
        continue;
      }
      // An SDK client keeps its `ws` WebSocket as `ref`, and `ws` its TCP socket as `_socket`. Colyseus
      // negotiates no compression, so a frame's payload goes out as it is.
      const ws = client.ref as WebSocket | undefined;
      const socket = (ws as { _socket?: Socket } | undefined)?._socket;
      if (ws instanceof WebSocket && ws.readyState === WebSocket.OPEN && socket && !socket.destroyed)
        this.sdk.push(new HeldSdkFrames(client, ws, socket));
    }
  }

  /** Puts what each client was sent into one write per client, to be handed to the writer thread together. */
  flush(): SocketWrites {
    const writes = new SocketWrites();
    for (const client of this.held) client.flush(writes);
    const framed = new FramedPayloads();
    for (const frames of this.sdk) frames.write(writes, framed);
    // Now rather than at the next publish: what it framed dies young, before the collection after the tick.
    slab.reset(writes.written);
    return writes;
  }
}

/**
 * Runs `send` so that what it sends each client leaves in one write (see SendBatch). A tick sends many
 * small frames to each client (its view, chat, hits); one write per client instead of one or two per
 * frame is what lets a world of thousands publish within its tick. `send` may take memory for frames
 * it shares between clients from `slab`. The writes leave when the caller sends them, which it must:
 * once its own work is done, as on one core the writer thread then takes the core.
 */
export function withBatchedSends(clients: Iterable<Client>, send: (slab: WriteSlab) => void): SocketWrites {
  const batch = new SendBatch(clients);
  try {
    send(slab);
  } catch (error) {
    // What was sent before the failure still goes out, and the clients send on their own again.
    void batch.flush().send();
    throw error;
  }
  return batch.flush();
}
