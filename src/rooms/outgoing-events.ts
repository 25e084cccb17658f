import { type Client, ClientState, getMessageBytes, Protocol } from "@colyseus/core";
import type { Choosable, CrowdChoice } from "../game/crowd-choices.js";
import { distanceTo } from "../game/nearest-players.js";
import type { Tile } from "../game/types.js";
import { blockAround, type Cell, cellOf } from "../game/view-index.js";
import type { OutboundEvent } from "../game/world-types.js";
import { FramedBytes, framedLength, writeFrames } from "../net/frames.js";
import type { WriteSlab } from "../net/write-slab.js";
import { EncodedJson } from "../protocol/encoded-json.js";
import { isJsonClient } from "../protocol/json-client.js";
import { countMessagesOut } from "../telemetry/metrics.js";
import { keepShapeOf } from "../tuning/kept-shapes.js";
import type { Interest } from "./interest.js";

/**
 * Sends a tick's events (within a batched publish: see withBatchedSends): the `{near}` ones to the
 * clients that see their tiles (a crowded client: those within its crowd choice's reach), then each
 * player's own, in the tick's order. The joined /ws clients of a view cell (crowded: of a crowd choice)
 * all get the same frames of the events around, made once for them. `answer` sends an
 * event as the reply to the message that caused it, when it knows that message (true then): a player's
 * own event, or a /ws speaker's copy of its chat line, which that client is then sent on its own (with
 * its lines, wherever it now stands).
 */
export function deliverEvents(
  events: readonly OutboundEvent[],
  interest: Interest,
  ownerOf: (playerId: string) => Client | undefined,
  slab: WriteSlab,
  {
    answer = () => false,
    isGreeted = () => true,
  }: {
    answer?: (event: OutboundEvent) => boolean;
    /** Whether a client was sent its player:sync: before that it is sent no event (the sync shows them). */
    isGreeted?: (client: Client) => boolean;
  } = {},
): void {
  const outgoing: OutgoingEvent[] = [];
  for (let order = 0; order < events.length; order++) outgoing.push(new OutgoingEvent(events[order]!, order));
  const near = new NearEvents(outgoing);
  const linesBySpeaker = answeringLines(outgoing);
  /** Answering lines their speakers were sent (or answered with) among the events around them. */
  const heard = new Set<OutgoingEvent>();
  if (!near.isEmpty) {
    for (const [cell, viewers] of interest.viewerCells()) {
      const seenInCell = near.seenFrom(cell);
      if (seenInCell.length === 0 && linesBySpeaker.size === 0) continue;
      const inCell: Audience = { seen: seenInCell, framed: undefined, recipients: 0 };
      /** Crowded clients hear what is within their crowd choice's reach, shared by the choice's clients. */
      let byChoice: Map<CrowdChoice<Choosable>, Audience> | undefined;
      for (const { client, playerId, choice } of viewers) {
        if (!isGreeted(client)) continue;
        let audience = inCell;
        if (choice && choice.reach !== Number.POSITIVE_INFINITY) {
          byChoice ??= new Map();
          let shared = byChoice.get(choice);
          if (!shared) {
            shared = { seen: withinReach(seenInCell, choice), framed: undefined, recipients: 0 };
            byChoice.set(choice, shared);
          }
          audience = shared;
        }
        const seen = audience.seen;
        const joined = isJsonClient(client) && client.state === ClientState.JOINED;
        const own = linesBySpeaker.size > 0 ? linesBySpeaker.get(playerId) : undefined;
        if (own) {
          // A speaker hears its lines wherever it stands now (it may have teleported away from them), in
          // the tick's order among the events around it; on /ws each is the reply to its message.
          for (const event of withOwnLines(seen, own)) {
            const said = own.includes(event);
            if (said) heard.add(event);
            if (!(said && joined && answer(event.event))) event.sendTo(client);
          }
          continue;
        }
        if (seen.length === 0) continue;
        if (joined) {
          audience.framed ??= framedEvents(seen, slab);
          client.sendFramed(audience.framed);
          audience.recipients++;
        } else {
          for (const event of seen) event.sendTo(client);
        }
      }
      countRecipients(inCell);
      for (const audience of byChoice?.values() ?? []) countRecipients(audience);
    }
  }
  for (const event of outgoing) {
    const to = event.event.to;
    if (typeof to === "string") {
      const client = ownerOf(to);
      if (client && isGreeted(client) && !answer(event.event)) event.sendTo(client);
    } else if (isAnsweringLine(event.event) && !heard.has(event)) {
      // Its speaker has no view open yet: the line still answers its message.
      answer(event.event);
    }
  }
}

/** The `{ near }` events some clients of a cell see, framed once for those of them that are joined /ws clients. */
interface Audience {
  readonly seen: readonly OutgoingEvent[];
  framed: FramedBytes | undefined;
  /** The clients sent `framed`. */
  recipients: number;
}

function countRecipients({ seen, recipients }: Audience): void {
  if (recipients > 0) for (const event of seen) event.counted(recipients);
}

/** The events within a crowd choice's reach of its block (see crowd-choices.ts), in their order. */
function withinReach(seen: readonly OutgoingEvent[], choice: CrowdChoice<Choosable>): OutgoingEvent[] {
  const within: OutgoingEvent[] = [];
  for (const outgoing of seen) {
    const { near } = outgoing.event.to as { near: Tile };
    if (distanceTo(choice.block, near.x, near.z) <= choice.reach) within.push(outgoing);
  }
  return within;
}

/** The tick's order of events. */
function byOrder(a: OutgoingEvent, b: OutgoingEvent): number {
  return a.order - b.order;
}

/** A chat line that answers its speaker's message. */
function isAnsweringLine(event: OutboundEvent): event is OutboundEvent & { event: "chat:message" } {
  return event.event === "chat:message" && event.ref !== undefined;
}

/** The tick's chat lines that answer a message of their speaker's, by speaker. */
function answeringLines(events: readonly OutgoingEvent[]): Map<string, OutgoingEvent[]> {
  const lines = new Map<string, OutgoingEvent[]>();
  for (const outgoing of events) {
    const { event } = outgoing;
    if (!isAnsweringLine(event)) continue;
    const speaker = event.data.fromPlayerId;
    const said = lines.get(speaker);
    if (said) said.push(outgoing);
    else lines.set(speaker, [outgoing]);
  }
  return lines;
}

/** The events seen around a speaker, with its own lines that are not among them, in the tick's order. */
function withOwnLines(
  seen: readonly OutgoingEvent[],
  own: readonly OutgoingEvent[],
): readonly OutgoingEvent[] {
  const elsewhere = own.filter((line) => !seen.includes(line));
  return elsewhere.length === 0 ? seen : [...seen, ...elsewhere].sort(byOrder);
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

  /** More recipients (one by default), for the metrics. */
  counted(recipients = 1): void {
    countMessagesOut(this.event.event, recipients);
  }

  /** JSON for /ws clients, msgpack for SDK clients. */
  sendTo(client: Client): void {
    this.counted();
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
    keepShapeOf("near", this);
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
    if (cellsWithEvents > 1) seen.sort(byOrder);
    return seen;
  }
}

/** The WebSocket frames of `events`, one after the other, in memory from `slab`. */
function framedEvents(events: readonly OutgoingEvent[], slab: WriteSlab): FramedBytes {
  const frames: (readonly Buffer[])[] = [];
  let length = 0;
  for (const event of events) {
    const frame = event.jsonFrame();
    frames.push(frame);
    length += framedLength(frame);
  }
  return new FramedBytes(writeFrames(frames, slab.take(length)));
}
