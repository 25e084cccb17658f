import type { TickReport } from "../game/world-types.js";
import type { FrameWrites } from "../net/frame-writes.js";
import type { Outbox } from "../net/outbox.js";
import type { TickPace } from "../ports/tick-pace.js";
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
  constructor(private readonly parts: PublisherParts) {}

  /**
   * Views (and for SDK clients the state patch) first, so that an event's entity is in view before the
   * event that concerns it; then the events seen around, then each player's own; all of it leaves in
   * one write per connection, once the caller sends the writes returned.
   */
  publish(report: TickReport): FrameWrites {
    const { outbox, interest, sessions, replies } = this.parts;
    const writes = outbox.batch(this.parts.clients(), (slab) => {
      this.sendViews();
      this.parts.broadcastPatch();
      deliverEvents(report.events, interest, (id) => sessions.owner(id), slab, {
        answer: (event) => replies.answer(event),
        isGreeted: (client) => sessions.isGreeted(client),
      });
    });
    interest.forgetSharedUpdates();
    return writes;
  }

  /** Each player's client is sent what changed around it (views are open for the players' clients only). */
  private sendViews(): void {
    const { pace } = this.parts;
    this.parts.interest.updateAll(
      pace
        ? (client, update) => {
            sendUpdate(client, update);
            pace.updateSent(client.sessionId);
          }
        : sendUpdate,
    );
  }
}
