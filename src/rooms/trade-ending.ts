import { type Client, ClientState, type Clock, CloseCode } from "@colyseus/core";
import type { Trade, TradeEvent } from "../game/trade.js";
import type { Logger } from "../telemetry/logger.js";
import { countTradeCompleted, countTradeFailed } from "../telemetry/metrics.js";

/** How often a client that joined an ended trade's room is looked at, to be let go once its join is confirmed. */
const JOIN_CONFIRM_POLL_MS = 50;

/**
 * A trade room's end, once reached: counted and logged once, told to each player once (in the room,
 * through its world, or as it joins the room later), and the room's clients let go.
 */
export class TradeEnding {
  /** The events that ended the trade, for a player whose join was still under way. */
  private events: readonly TradeEvent[] = [];
  /**
   * Players told the end through the world, not being in the room then, and whether the world could (it
   * has no connection of a kicked player's, say): a join of theirs hears it here only if it could not.
   */
  private readonly toldThroughWorld = new Map<string, Promise<boolean>>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The trade ended with `events`: counted, logged, and kept for a player who joins after. */
  reached(trade: Trade, events: readonly TradeEvent[]): void {
    this.events = events;
    const players = trade.sides.map(({ player }) => player.name);
    if (trade.stage === "completed") {
      countTradeCompleted();
      this.logger.info({ tradeId: trade.id, players }, `trade completed: ${players.join(" and ")}`);
    } else {
      const reason = trade.cancelReason ?? "cancelled";
      countTradeFailed(reason);
      this.logger.info(
        { tradeId: trade.id, players, reason },
        `trade failed (${reason}): ${players.join(" and ")}`,
      );
    }
  }

  /** A player not in the room is told the end through the world; `told` says whether it could be. */
  toldElsewhere(playerId: string, told: Promise<boolean>): void {
    this.toldThroughWorld.set(playerId, told);
  }

  /**
   * A player joins the room after the end (still joining then, or joining again): it learns how the trade
   * ended, unless its world connection told it, and is let go.
   */
  joinedAfter(client: Client, playerId: string): void {
    void (this.toldThroughWorld.get(playerId) ?? Promise.resolve(false)).then((toldThere) => {
      if (!toldThere)
        for (const { event, data, to } of this.events) if (to === playerId) client.send(event, data);
      this.letGoOnceJoined(client);
    });
  }

  /**
   * Lets a client of the ended trade go, once its join is confirmed: what it was sent as it joined is held
   * until then, and a close before would lose it. Closed as consented: the SDK would take a close
   * without a code for a drop and try to reconnect.
   */
  letGoOnceJoined(client: Client): void {
    if (client.state === ClientState.JOINED) {
      client.leave(CloseCode.CONSENTED);
      return;
    }
    const check = this.clock.setInterval(() => {
      if (client.state === ClientState.JOINING) return;
      check.clear();
      if (client.state === ClientState.JOINED) client.leave(CloseCode.CONSENTED);
    }, JOIN_CONFIRM_POLL_MS);
  }
}
