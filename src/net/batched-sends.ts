import type { Socket } from "node:net";
import type { Client } from "@colyseus/core";
import { WebSocket } from "ws";
import { keepShapeOf } from "../tuning/kept-shapes.js";
import type { FrameWrites } from "./frame-writes.js";
import { binaryFramesLength, writeBinaryFrames } from "./frames.js";
import { closeIfSlowReader } from "./slow-reader.js";
import type { WriteSlab } from "./write-slab.js";

/** A client that frames what it is sent by hand (a /ws client): held in the slab until `flush`. */
export interface FrameHolder {
  /** Holds what it is sent from now on, framed in `slab`; false when it has no socket to write to. */
  holdFrames(slab: WriteSlab): boolean;
  /** Adds the held frames to `writes`, as one write. */
  flushFrames(writes: FrameWrites): void;
}

function isFrameHolder(client: unknown): client is FrameHolder {
  return typeof (client as Partial<FrameHolder>).holdFrames === "function";
}

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

  write(writes: FrameWrites, framed: FramedPayloads): void {
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
      for (const region of regions) framed.slab.keep(region);
  }
}

/**
 * Colyseus payloads framed in a publish, by payload: a world:update or an event's room message is one
 * buffer for all the SDK clients sent it (see EncodedJson.roomMessage), framed once and written to
 * each of them from there.
 */
class FramedPayloads {
  private readonly framed = new Map<Uint8Array, Buffer>();

  constructor(readonly slab: WriteSlab) {
    keepShapeOf("payloads", this);
  }

  of(payload: Uint8Array): Buffer {
    let region = this.framed.get(payload);
    if (!region) {
      region = writeBinaryFrames([payload], this.slab.take(binaryFramesLength([payload])));
      this.framed.set(payload, region);
    }
    return region;
  }
}

/**
 * The clients of one publish, holding what they are sent until `flush`: a /ws client holds its frames,
 * and with `holdSdkFrames` (the thread path) an SDK client its Colyseus frames; without it, Colyseus
 * writes an SDK client's frames through `ws` itself.
 */
export class SendBatch {
  private readonly held: FrameHolder[] = [];
  private readonly sdk: HeldSdkFrames[] = [];
  /** SDK clients `ws` writes to itself (the stream path): checked for slow readers after the publish. */
  private readonly unheld: WebSocket[] = [];

  constructor(
    clients: Iterable<Client>,
    private readonly slab: WriteSlab,
    holdSdkFrames: boolean,
  ) {
    keepShapeOf("batch", this);
    for (const client of clients) {
      if (isFrameHolder(client)) {
        if (client.holdFrames(slab)) this.held.push(client);
        continue;
      }
      // An SDK client keeps its `ws` WebSocket as `ref`, and `ws` its TCP socket as `_socket`. Colyseus
      // negotiates no compression, so a frame's payload goes out as it is.
      const ws = client.ref as WebSocket | undefined;
      if (!holdSdkFrames) {
        if (ws instanceof WebSocket) this.unheld.push(ws);
        continue;
      }
      const socket = (ws as { _socket?: Socket } | undefined)?._socket;
      if (ws instanceof WebSocket && ws.readyState === WebSocket.OPEN && socket && !socket.destroyed)
        this.sdk.push(new HeldSdkFrames(client, ws, socket));
    }
  }

  /** Puts what each client was sent into one write per client in `writes`, to be sent together. */
  flush<W extends FrameWrites>(writes: W): W {
    for (const client of this.held) client.flushFrames(writes);
    const framed = new FramedPayloads(this.slab);
    for (const frames of this.sdk) frames.write(writes, framed);
    // What the publish sent them is on their streams already: one that leaves too much unread is closed.
    for (const ws of this.unheld) if (ws.readyState === WebSocket.OPEN) closeIfSlowReader(ws, 0);
    // Now rather than at the next publish: what it framed dies young, before the collection after the tick.
    this.slab.reset(writes.written);
    return writes;
  }
}
