import { EventEmitter } from "node:events";
import type { Duplex } from "node:stream";
import {
  type Client,
  ClientState,
  enqueueClientRaw,
  getMessageBytes,
  type ISendOptions,
  Protocol,
} from "@colyseus/core";
import { decode } from "@colyseus/schema";
import { unpack } from "msgpackr";
import type { WebSocket } from "ws";
import type { FrameHolder } from "../net/batched-sends.js";
import type { FrameWrites } from "../net/frame-writes.js";
import { type FramedBytes, framedLength, type OutgoingMessage } from "../net/frames.js";
import { closeIfSlowReader } from "../net/slow-reader.js";
import type { WriteSlab } from "../net/write-slab.js";
import { EncodedJson } from "./encoded-json.js";

const PROTOCOL_CODE_MASK = 0x1f;

export interface JsonClientOptions {
  /** Output buffered on the socket beyond which the reader is too slow and is disconnected. */
  maxBufferedBytes: number;
  /**
   * A client that shares its connection's socket (a trade joined on the same /ws connection) only
   * leaves its room when the room lets it go; the socket stays open.
   */
  sharesSocket?: boolean;
  /** Sees every event sent to the far end (the /ws connection follows trades this way). */
  onEvent?: (event: string, data: unknown) => void;
  /**
   * The connection's TCP socket (the one its HTTP upgrade came on): a batched publish writes the
   * client's frames to it in one write. Without it, the client's frames go through `ws` one by one.
   */
  tcp?: Duplex;
}

/**
 * A Colyseus `Client` whose far end speaks the spec's JSON envelope `{event, data, id?}` over a plain
 * WebSocket. Rooms treat it like any SDK client; what they send reaches the socket as JSON frames.
 */
// `send` is typed loosely: Client's is generic over the room's message map, which this client does not know.
export class JsonClient implements Omit<Client, "send">, FrameHolder {
  declare "~messages": Record<string, unknown>;
  /** Colyseus listens here for "message" (protocol frames) and "close"; the socket is not exposed to it. */
  readonly ref = new EventEmitter();
  state: ClientState = ClientState.JOINING;
  reconnectionToken = "";
  userData?: unknown;
  auth?: unknown;
  _enqueuedMessages: unknown[] = [];
  _joinedAt = 0;
  /** Messages held until `flush`, and the memory they are framed in meanwhile. */
  private held: OutgoingMessage[] = [];
  private heldIn: WriteSlab | undefined;
  private heldBytes = 0;
  private readonly joinAcknowledged: Promise<void>;
  private acknowledgeJoin!: () => void;

  constructor(
    readonly sessionId: string,
    readonly socket: WebSocket,
    private readonly options: JsonClientOptions,
  ) {
    this.joinAcknowledged = new Promise((resolve) => {
      this.acknowledgeJoin = resolve;
    });
  }

  /** Resolves once the room has accepted the client and flushed what it queued during the join. */
  joined(): Promise<void> {
    return this.joinAcknowledged;
  }

  get readyState(): number {
    return this.socket.readyState;
  }

  /** Sends an event frame; `id` echoes the client's request id on replies. */
  sendJson(event: string, data: unknown, id?: string): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    const encoded = data instanceof EncodedJson && id === undefined ? data : undefined;
    if (this.heldIn) {
      this.holdMessage(
        encoded ? encoded.framedIn(this.heldIn, event) : [Buffer.from(frameText(event, data, id))],
      );
    } else {
      const payload = encoded ? Buffer.concat(encoded.frame(event)) : Buffer.from(frameText(event, data, id));
      if (!this.overflows(payload.length)) this.socket.send(payload, { binary: false });
    }
    this.options.onEvent?.(event, data);
  }

  /**
   * Adds frames made once for many clients (the events a view cell sees) to what is held for `flush`.
   * Only for events no `onEvent` observer follows, and only while holding: they cannot go through `ws`.
   */
  sendFramed(frames: FramedBytes): void {
    if (!this.heldIn) throw new Error("framed bytes are only sent within a batched publish");
    if (this.socket.readyState === this.socket.OPEN) this.holdMessage(frames);
  }

  private holdMessage(message: OutgoingMessage): void {
    this.held.push(message);
    this.heldBytes += framedLength(message);
  }

  /**
   * Holds the frames sent from now on until `flushFrames`, which writes them to the connection at once;
   * they are framed in `slab` (see WriteSlab), which must not be reset before the flush.
   */
  holdFrames(slab: WriteSlab): boolean {
    if (!this.options.tcp) return false;
    this.heldIn = slab;
    return true;
  }

  /** Adds the held frames to `writes`, as one write. */
  flushFrames(writes: FrameWrites): void {
    const slab = this.heldIn;
    const messages = this.held;
    const bytes = this.heldBytes;
    this.heldIn = undefined;
    this.held = [];
    this.heldBytes = 0;
    if (
      !slab ||
      messages.length === 0 ||
      this.socket.readyState !== this.socket.OPEN ||
      this.overflows(bytes)
    )
      return;
    // The frames `ws` would have written one by one, in one write.
    const tcp = this.options.tcp;
    if (!tcp || tcp.destroyed) return;
    const regions = slab.regions(messages);
    if (writes.add(tcp, regions)) for (const region of regions) slab.keep(region);
  }

  /** A reader that does not keep up is disconnected rather than buffered for (see closeIfSlowReader). */
  private overflows(moreBytes: number): boolean {
    return closeIfSlowReader(this.socket, moreBytes, this.options.maxBufferedBytes);
  }

  send(type: string | number, message?: unknown, options?: ISendOptions): void {
    if (this.state === ClientState.JOINED && !options?.afterNextPatch) {
      this.sendJson(String(type), message ?? {});
      return;
    }
    const value = message instanceof EncodedJson ? message.decode() : message;
    this.enqueueRaw(getMessageBytes.raw(Protocol.ROOM_DATA, type, value), options);
  }

  sendBytes(type: string | number, bytes: Buffer | Uint8Array, options?: ISendOptions): void {
    this.enqueueRaw(getMessageBytes.raw(Protocol.ROOM_DATA_BYTES, type, undefined, bytes), options);
  }

  enqueueRaw(data: Uint8Array | Buffer, options?: ISendOptions): void {
    enqueueClientRaw(this as unknown as Parameters<typeof enqueueClientRaw>[0], data, options);
  }

  /** Protocol frames from the room: the join handshake is acknowledged, data frames become JSON. */
  raw(data: Uint8Array | Buffer, _options?: ISendOptions, cb?: (error?: Error) => void): void {
    const code = data[0]! & PROTOCOL_CODE_MASK;
    if (code === Protocol.JOIN_ROOM) {
      // What an SDK answers once it has read the handshake; the room then flushes queued messages.
      queueMicrotask(() => {
        this.ref.emit("message", Buffer.from([Protocol.JOIN_ROOM]));
        this.acknowledgeJoin();
      });
    } else if (code === Protocol.ROOM_DATA) {
      const iterator = { offset: 1 };
      const type = decode.stringCheck(data, iterator)
        ? decode.string(data, iterator)
        : String(decode.number(data, iterator));
      const message = data.byteLength > iterator.offset ? unpack(data.subarray(iterator.offset)) : {};
      this.sendJson(type, message);
    } else if (code === Protocol.ERROR) {
      const iterator = { offset: 1 };
      const errorCode = decode.number(data, iterator);
      this.sendJson("error", {
        code: "room_error",
        message: decode.string(data, iterator),
        status: errorCode,
      });
    }
    // State frames (full state and patches) are for SDK decoders; JSON clients get world:update instead.
    cb?.();
  }

  error(code: number, message = ""): void {
    this.sendJson("error", { code: "room_error", message, status: code });
  }

  leave(code?: number, reason?: string): void {
    if (this.options.sharesSocket) this.ref.emit("close", code);
    else this.socket.close(code, reason);
  }

  close(code?: number, reason?: string): void {
    this.leave(code, reason);
  }
}

function frameText(event: string, data: unknown, id: string | undefined): string {
  const body = data instanceof EncodedJson ? data.text : JSON.stringify(data);
  const tail = id === undefined ? "}" : `,"id":${JSON.stringify(id)}}`;
  return `{"event":${JSON.stringify(event)},"data":${body}${tail}`;
}

/** /ws clients read world:update instead of schema patches. */
export function isJsonClient(client: unknown): client is JsonClient {
  return client instanceof JsonClient;
}
