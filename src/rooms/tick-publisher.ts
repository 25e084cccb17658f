import type { Client } from "@colyseus/core";
import type { OutboundEvent, TickReport } from "../game/world-types.js";
import type { FrameWrites } from "../net/frame-writes.js";
import type { Outbox } from "../net/outbox.js";
import type { TickPace } from "../ports/tick-pace.js";
import type { EncodedUpdate } from "../protocol/encoded-json.js";
import type { Interest } from "./interest.js";
import { deliverEvents } from "./outgoing-events.js";
import type { PendingReplies } from "./pending-replies.js";
import { sendUpdate, type WorldClient } from "./world-client.js";
import type { WorldSessions } from "./world-sessions.js";

export interface PublisherParts {
  readonly outbox: Outbox;
  readonly interest: Interest;
  readonly sessions: WorldSessions;
  readonly replies: PendingReplies;
  /** The room's clients now: each tick's publish writes to them. */
  clients(): WorldClient[];
  /** Colyseus's state patch of the tick. */
  broadcastPatch(): void;
  /** Told who is sent an update, when something besides the clock paces the ticks. */
  readonly pace?: TickPace;
}

/** A tick's "publish" phase (see TickLoop): what the tick changed, sent once it is durable. */
export class TickPublisher {
  // Made once, not at each publish: a function made anew each time loses its optimized code at the
  // room's full collections, and is compiled again in the ticks after (docs/architecture.md).
  private readonly ownerOf = (playerId: string) => this.parts.sessions.owner(playerId);
  private readonly delivery = {
    answer: (event: OutboundEvent) => this.parts.replies.answer(event),
    isGreeted: (client: Client) => this.parts.sessions.isGreeted(client),
  };
  private readonly sendPaced = (client: Client, update: EncodedUpdate) => {
    sendUpdate(client, update);
    this.parts.pace?.updateSent(client.sessionId);
  };

  constructor(private readonly parts: PublisherParts) {}

  /**
   * Views (and for SDK clients the state patch) first, so that an event's entity is in view before the
   * event that concerns it; then the events seen around, then each player's own; all of it leaves in
   * one write per connection, once the caller sends the writes returned.
   */
  publish(report: TickReport): FrameWrites {
    const { outbox, interest } = this.parts;
    const writes = outbox.batch(this.parts.clients(), (slab) => {
      // Views are open for the players' clients only: each is sent what changed around its player.
      interest.updateAll(this.parts.pace ? this.sendPaced : sendUpdate);
      this.parts.broadcastPatch();
      deliverEvents(report.events, interest, this.ownerOf, slab, this.delivery);
    });
    interest.forgetSharedUpdates();
    return writes;
  }
}
