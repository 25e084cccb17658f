import { getMessageBytes, Protocol } from "@colyseus/core";
import type { FramedBytes } from "../net/frames.js";
import type { WriteSlab } from "../net/write-slab.js";
import { keepShapeOf } from "../tuning/kept-shapes.js";

/**
 * Event data already serialized to JSON. When one entity is seen by hundreds of /ws clients, its JSON
 * is built once per tick and copied into each client's frame instead of being serialized for each of
 * them. Within a publish it is framed once, straight into the publish's memory (`framedIn`); it is
 * encoded to a buffer of its own only for a send outside one.
 */
export class EncodedJson {
  private readonly frames = new Map<string, readonly Buffer[]>();
  /** Its last frame made in a slab, good while that slab is in the same publish. */
  private slabFrame: { slab: WriteSlab; publish: number; event: string; frame: FramedBytes } | undefined =
    undefined;
  /** A world:update's room message, once made (see roomMessage). */
  private message: Buffer | undefined = undefined;

  constructor(
    readonly text: string,
    /** A world:update's msgpack after `head`, in one buffer: only a world:update has a room message. */
    private readonly packAfter?: (head: Buffer) => Buffer,
  ) {
    keepShapeOf("json", this);
  }

  static of(data: unknown): EncodedJson {
    return new EncodedJson(JSON.stringify(data));
  }

  /** The whole `{event, data}` frame as UTF-8 pieces (to be written one after the other), built once per event. */
  frame(event: string): readonly Buffer[] {
    let frame = this.frames.get(event);
    if (!frame) {
      frame = [frameHead(event), Buffer.from(this.text), FRAME_TAIL];
      this.frames.set(event, frame);
    }
    return frame;
  }

  /** The whole `{event, data}` frame in `slab`'s memory, made once per publish for all its clients. */
  framedIn(slab: WriteSlab, event: string): FramedBytes {
    const made = this.slabFrame;
    if (made?.slab === slab && made.publish === slab.publish && made.event === event) return made.frame;
    const frame = slab.textFrame(frameHead(event), this.text, FRAME_TAIL);
    this.slabFrame = { slab, publish: slab.publish, event, frame };
    return frame;
  }

  /**
   * A world:update as SDK clients read it: its Colyseus room message, made at most once however many
   * of them it is sent to.
   */
  roomMessage(): Buffer {
    if (!this.packAfter) throw new TypeError("only a world:update is sent as a room message");
    this.message ??= this.packAfter(WORLD_UPDATE_HEAD);
    return this.message;
  }

  /** For transports that need the value itself (msgpack for SDK clients, frames queued during a join). */
  decode(): unknown {
    return JSON.parse(this.text);
  }
}

const FRAME_TAIL = Buffer.from("}");
const frameHeads = new Map<string, Buffer>();

function frameHead(event: string): Buffer {
  let head = frameHeads.get(event);
  if (!head) {
    head = Buffer.from(`{"event":${JSON.stringify(event)},"data":`);
    // Event names are the protocol's few; anything else is not worth keeping.
    if (frameHeads.size < 64) frameHeads.set(event, head);
  }
  return head;
}

/** What comes before a world:update room message's msgpack: its protocol code and its type. */
const WORLD_UPDATE_HEAD = getMessageBytes.raw(Protocol.ROOM_DATA, "world:update");

/**
 * A world:update, for both kinds of client that read it: its JSON for /ws clients, and for SDK clients
 * its room message. An EncodedJson rather than a subclass of it: under tsx (`npm start`, the benches),
 * V8 gave up every attempt at optimizing code that constructed the subclass ("dependency change"), so
 * the views' updateView, which makes them, never ran optimized, and each attempt (about one a tick at
 * 2,000 players) cost 7 ms of compiling.
 */
export type EncodedUpdate = EncodedJson;

export function encodedUpdate(text: string, packAfter: (head: Buffer) => Buffer): EncodedUpdate {
  return new EncodedJson(text, packAfter);
}
