import { type Client, ClientState, getMessageBytes, Protocol } from "@colyseus/core";
import { blockAround, type Cell, cellOf } from "../game/view-index.js";
import type { OutboundEvent } from "../game/world-types.js";
import { keepShapeOf } from "../kept-shapes.js";
import { FramedBytes, framedLength, writeFrames } from "../ws/frames.js";
import type { WriteSlab } from "../ws/write-slab.js";
import { EncodedJson } from "./encoded-json.js";
import { type Interest, isJsonClient } from "./interest.js";

/**
 * Sends a tick's events (within a batched publish: see withBatchedSends): the `{near}` ones to the
 * clients that see their tiles, then each player's own, in the tick's order. The joined /ws clients of
 * a view cell all get the same frames of the events around, made once for the cell. `answer` sends an
 * event as the reply to the message that caused it, when it knows that message (true then): a player's
 * own event, or a /ws speaker's copy of its chat line, which that client is then sent on its own.
 */
export function deliverEvents(
  events: readonly OutboundEvent[],
  interest: Interest,
  ownerOf: (playerId: string) => Client | undefined,
  slab: WriteSlab,
  answer: (event: OutboundEvent) => boolean = () => false,
): void {
  const outgoing = events.map((event, order) => new OutgoingEvent(event, order));
  const near = new NearEvents(outgoing);
  const speakers = answeringSpeakers(events);
  /** Chat lines their speakers were sent (or answered with) among the events around them. */
  const heard = new Set<OutgoingEvent>();
  const noteHeard = (event: OutgoingEvent, speaker: string | undefined) => {
    const said = event.event.event === "chat:message" && event.event.data.fromPlayerId === speaker;
    if (said) heard.add(event);
    return said;
  };
  if (!near.isEmpty) {
    interest.forEachViewerCell((cell, clients) => {
      const seen = near.seenFrom(cell);
      if (seen.length === 0) return;
      let framed: FramedBytes | undefined;
      for (const client of clients) {
        const speaker = speakers.size > 0 ? client.auth?.characterId : undefined;
        const speaks = speaker !== undefined && speakers.has(speaker);
        if (!isJsonClient(client) || client.state !== ClientState.JOINED) {
          for (const event of seen) {
            if (speaks) noteHeard(event, speaker);
            event.sendTo(client);
          }
        } else if (speaks) {
          for (const event of seen)
            if (!(noteHeard(event, speaker) && answer(event.event))) event.sendTo(client);
        } else {
          framed ??= framedEvents(seen, slab);
          client.sendFramed(framed);
        }
      }
    });
  }
  for (const event of outgoing) {
    const to = event.event.to;
    if (typeof to === "string") {
      const client = ownerOf(to);
      if (client && !answer(event.event)) event.sendTo(client);
    } else if (isAnsweringLine(event.event) && !heard.has(event)) {
      // Its speaker left the sight of it in the same tick (a teleport): the line still answers its message.
      answer(event.event);
    }
  }
}

/** A chat line that answers its speaker's message. */
function isAnsweringLine(event: OutboundEvent): event is OutboundEvent & { event: "chat:message" } {
  return event.event === "chat:message" && event.ref !== undefined;
}

/** The players whose chat lines this tick answer a message of theirs. */
function answeringSpeakers(events: readonly OutboundEvent[]): Set<string> {
  const speakers = new Set<string>();
  for (const event of events) if (isAnsweringLine(event)) speakers.add(event.data.fromPlayerId);
  return speakers;
}

/** One of a tick's events on its way out, encoded at most once in each form its recipients read. */
class OutgoingEvent {
  private json: EncodedJson | undefined = undefined;
  private msgpack: Buffer | undefined = undefined;

  constructor(
    readonly event: OutboundEvent,
    /** Its place among the tick's events: the order every recipient gets them in. */
    readonly order: number,
  ) {
    keepShapeOf("event", this);
  }

  /** JSON for /ws clients, msgpack for SDK clients. */
  sendTo(client: Client): void {
    if (isJsonClient(client)) {
      this.json ??= EncodedJson.of(this.event.data);
      client.send(this.event.event, this.json);
    } else {
      this.msgpack ??= getMessageBytes.raw(Protocol.ROOM_DATA, this.event.event, this.event.data);
      client.enqueueRaw(this.msgpack);
    }
  }

  /** Its /ws envelope as pieces of UTF-8. */
  jsonFrame(): readonly Buffer[] {
    this.json ??= EncodedJson.of(this.event.data);
    return this.json.frame(this.event.event);
  }
}

/**
 * A tick's `{near}` events by the view cell of their tile. Every client whose view was brought up to
 * date from the same cell sees the same events, so what its /ws clients get is framed once for them all.
 */
class NearEvents {
  private readonly byCell = new Map<Cell, OutgoingEvent[]>();

  constructor(events: readonly OutgoingEvent[]) {
    for (const outgoing of events) {
      const to = outgoing.event.to;
      if (typeof to === "string") continue;
      const cell = cellOf(to.near);
      const list = this.byCell.get(cell);
      if (list) list.push(outgoing);
      else this.byCell.set(cell, [outgoing]);
    }
  }

  get isEmpty(): boolean {
    return this.byCell.size === 0;
  }

  /** The events seen from a view cell, in the tick's order. */
  seenFrom(viewer: Cell): OutgoingEvent[] {
    const seen: OutgoingEvent[] = [];
    let cellsWithEvents = 0;
    for (const cell of blockAround(viewer)) {
      const events = this.byCell.get(cell);
      if (!events) continue;
      cellsWithEvents++;
      for (const event of events) seen.push(event);
    }
    if (cellsWithEvents > 1) seen.sort((a, b) => a.order - b.order);
    return seen;
  }
}

/** The WebSocket frames of `events`, one after the other, in memory from `slab`. */
function framedEvents(events: readonly OutgoingEvent[], slab: WriteSlab): FramedBytes {
  const frames = events.map((event) => event.jsonFrame());
  let length = 0;
  for (const frame of frames) length += framedLength(frame);
  return new FramedBytes(writeFrames(frames, slab.take(length)));
}
