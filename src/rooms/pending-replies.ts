import type { OutboundEvent } from "../game/world-types.js";
import { isJsonClient } from "../protocol/json-client.js";
import type { Reply } from "../protocol/messages.js";
import type { WorldClient } from "./world-client.js";

interface Waiting {
  reply: Reply;
  event: string;
  client: WorldClient;
}

/**
 * How to answer the messages whose intents wait for the next tick, by the reference they were
 * submitted with: a refusal the tick finds (no path to the tile) answers its message, with its id.
 */
export class PendingReplies {
  private readonly waiting = new Map<number, Waiting>();
  private nextRef = 0;

  /** `ownerOf` names the client playing each character now. */
  constructor(private readonly ownerOf: (playerId: string) => WorldClient | undefined) {}

  /** The reference the next message's intent is submitted with. */
  reserve(): number {
    return this.nextRef++;
  }

  /** The intent submitted as `ref` was queued: what the tick does with it answers `reply`. */
  expect(ref: number, waiting: Waiting): void {
    this.waiting.set(ref, waiting);
  }

  /** Where the messages submitted so far end: the next tick applies all of them. */
  mark(): number {
    return this.nextRef;
  }

  /** The messages before `mark` were applied by a tick, and answered if refused: nothing more answers them. */
  forgetBefore(mark: number): void {
    for (const ref of this.waiting.keys()) {
      if (ref >= mark) break;
      this.waiting.delete(ref);
    }
  }

  /**
   * Sends what the tick did for a message as a reply to it: the refusal it found, the speaker's copy of
   * its chat line, a notice of what it came to, or the player:sync showing what it changed.
   */
  answer(event: OutboundEvent): boolean {
    switch (event.event) {
      case "error": {
        const waiting = this.take(event.ref, playerTo(event));
        waiting?.reply("error", { ...event.data, event: waiting.event });
        return waiting !== undefined;
      }
      case "store:stock": {
        const waiting = this.take(event.ref, playerTo(event));
        waiting?.reply("store:stock", event.data);
        return waiting !== undefined;
      }
      case "chat:message": {
        // The speaker's copy of its line, or a notice to the player (why its purchase came up short).
        const waiting = this.take(event.ref, playerTo(event) ?? event.data.fromPlayerId);
        waiting?.reply("chat:message", event.data);
        return waiting !== undefined;
      }
      case "player:sync": {
        const playerId = playerTo(event);
        // Only /ws replies carry the message's id: an SDK client is sent the state once, whatever it answers.
        const owner = playerId === undefined ? undefined : this.ownerOf(playerId);
        const copyPerMessage = owner !== undefined && isJsonClient(owner);
        let answered = false;
        for (const ref of event.refs ?? []) {
          const waiting = this.take(ref, playerId);
          if (waiting && (!answered || copyPerMessage)) waiting.reply("player:sync", event.data);
          answered ||= waiting !== undefined;
        }
        return answered;
      }
      default:
        return false;
    }
  }

  /**
   * The reply waiting for message `ref`: every event the tick caused for it answers it (a notice and
   * then the player:sync of a purchase), until the tick's publish is over (see forgetBefore). None when
   * the client that sent it no longer plays `playerId` (it reconnected since): what answers it goes to
   * the client that does, as a plain event.
   */
  private take(ref: number | undefined, playerId: string | undefined): Waiting | undefined {
    if (ref === undefined) return undefined;
    const waiting = this.waiting.get(ref);
    if (!waiting) return undefined;
    return playerId !== undefined && this.ownerOf(playerId) === waiting.client ? waiting : undefined;
  }
}

/** The player an event is for, unless it is for everyone near a tile. */
function playerTo(event: OutboundEvent): string | undefined {
  return typeof event.to === "string" ? event.to : undefined;
}
