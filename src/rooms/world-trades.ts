import { randomUUID } from "node:crypto";
import {
  cancelTrade,
  expireTrade,
  requestTrade,
  respondToTrade,
  type Trade,
  type TradeEvent,
  type TradeResult,
} from "../game/trade.js";
import type { TradeErrorReason } from "../game/trade-reasons.js";
import type { TradeEndReason } from "../ports/world-port.js";
import type { Reply } from "../protocol/messages.js";
import { countMessagesOut } from "../telemetry/metrics.js";

export type { TradeEndReason };
/** Why a player's trades end when it is gone. */
export type PlayerGoneReason = Extract<TradeEndReason, "partner_disconnected" | "player_died">;

/** The player whose message caused some trade events, and the answer to that message. */
export interface Cause {
  playerId: string;
  /** Answers the message: on /ws, the frames carry its request `id`, which only the sender's replies echo. */
  reply: Reply;
}

/** Sends each event to its player: the cause's own as replies to its message, the others' by `send`. */
export function sendTradeEvents(
  events: readonly TradeEvent[],
  send: (playerId: string, event: string, data: unknown) => void,
  cause?: Cause,
): void {
  for (const { to, event, data } of events) {
    countMessagesOut(event);
    if (to === cause?.playerId) cause.reply(event, data);
    else send(to, event, data);
  }
}

/** Players farther apart than this (Chebyshev tiles) cannot start a trade. */
export const TRADE_DISTANCE = 10;

export interface TradeWorld {
  isOnline(playerId: string): boolean;
  nameOf(playerId: string): string;
  distance(a: string, b: string): number | undefined;
  send(playerId: string, event: string, data: unknown): void;
  /** Creates the TradeRoom of an accepted request; the trade lives there from then on. */
  openTradeRoom(trade: Trade): Promise<void>;
  /** Cancels a started trade (its room owns it) on behalf of a player. */
  cancelStarted(tradeId: string, playerId: string, reason: TradeEndReason): void;
}

/**
 * The world's side of trading: requests until they are answered, and which players are in a started
 * trade (whose offers and accepts live in that trade's TradeRoom).
 */
export class TradeRequests {
  private readonly pending = new Map<string, Trade>();
  /** Player id → id of the started trade the player is in. */
  private readonly started = new Map<string, string>();
  /**
   * Started trades whose room is still being opened, with the first cancel that came meanwhile (there is
   * no room to take it yet): it is sent once the room is open.
   */
  private readonly opening = new Map<string, { playerId: string; reason: TradeEndReason } | undefined>();

  constructor(private readonly world: TradeWorld) {}

  /** Whether the player is in a started trade (offers, confirmation or the swap). */
  isTrading(playerId: string): boolean {
    return this.started.has(playerId);
  }

  /**
   * Sends the target `tradeIncoming` and the requester `tradeRequestSent` (its only way to learn the
   * tradeId, which cancelling takes), or returns why the request is refused.
   */
  request(fromId: string, targetId: string, now: number, reply: Reply): TradeErrorReason | undefined {
    // Refused before anything changes (requestTrade refuses it too, but only after the cancel below).
    if (fromId === targetId) return "self_trade";
    if (!this.world.isOnline(targetId)) return "player_offline";
    if (this.started.has(fromId) || this.started.has(targetId)) return "already_trading";
    if (this.tooFar(fromId, targetId)) return "too_far";
    const cause = { playerId: fromId, reply };
    // One outgoing request at a time: a new one replaces the previous.
    for (const trade of this.pending.values()) {
      if (trade.sides[0].player.id === fromId) this.apply(trade.id, cancelTrade(trade, fromId), cause);
    }
    const target = { id: targetId, name: this.world.nameOf(targetId) };
    const result = requestTrade(randomUUID(), { id: fromId, name: this.world.nameOf(fromId) }, target, now);
    if (!result.ok) return result.reason;
    this.pending.set(result.trade.id, result.trade);
    this.emit(result.events);
    reply("tradeRequestSent", {
      tradeId: result.trade.id,
      targetPlayerId: target.id,
      targetPlayerName: target.name,
    });
    return undefined;
  }

  /**
   * Starts or declines the trade, or returns why the answer is refused. The players must still be within
   * TRADE_DISTANCE to start it; a request refused so stays pending, to be accepted from closer.
   */
  async respond(
    playerId: string,
    tradeId: string,
    accept: boolean,
    now: number,
    reply: Reply,
  ): Promise<TradeErrorReason | undefined> {
    const trade = this.pending.get(tradeId);
    if (!trade) return this.refusalFor(playerId, tradeId);
    const result = respondToTrade(trade, playerId, accept, now);
    if (!result.ok) return result.reason;
    const [a, b] = [trade.sides[0].player.id, trade.sides[1].player.id];
    if (accept && (this.started.has(a) || this.started.has(b))) return "already_trading";
    if (accept && this.tooFar(a, b)) return "too_far";
    const cause = { playerId, reply };
    if (!accept) {
      this.apply(tradeId, result, cause);
      return undefined;
    }
    this.pending.delete(tradeId);
    this.started.set(a, tradeId);
    this.started.set(b, tradeId);
    this.opening.set(tradeId, undefined);
    try {
      await this.world.openTradeRoom(result.trade);
    } catch (error) {
      this.opening.delete(tradeId);
      this.ended(tradeId);
      // Not started: both are told it is over (the requester would wait on it for good), nothing moved.
      for (const id of [a, b]) this.world.send(id, "tradeCancelled", { tradeId, reason: "commit_failed" });
      throw error;
    }
    const cancelledMeanwhile = this.opening.get(tradeId);
    this.opening.delete(tradeId);
    this.emit(result.events, cause);
    if (cancelledMeanwhile)
      this.cancelStarted(tradeId, cancelledMeanwhile.playerId, cancelledMeanwhile.reason);
    // Each player is in one trade at a time: their other requests are void now. One between these two
    // (each had asked the other) is withdrawn, told to both; any other is told partner_busy.
    for (const other of [...this.pending.values()]) {
      const involved = other.sides.find((side) => side.player.id === a || side.player.id === b);
      if (!involved) continue;
      const between = other.sides.every((side) => side.player.id === a || side.player.id === b);
      this.apply(
        other.id,
        between
          ? cancelTrade(other, other.sides[0].player.id)
          : cancelTrade(other, involved.player.id, "partner_busy"),
      );
    }
    return undefined;
  }

  /**
   * `tradeCancel` sent to the world: a pending request is cancelled (by the requested player, that is
   * declining it), a started trade is cancelled through its room. Returns why it is refused.
   */
  cancel(playerId: string, tradeId: string, now: number, reply: Reply): TradeErrorReason | undefined {
    const trade = this.pending.get(tradeId);
    if (trade) {
      const declining = trade.sides[1].player.id === playerId;
      const result = declining ? respondToTrade(trade, playerId, false, now) : cancelTrade(trade, playerId);
      if (!result.ok) return result.reason;
      this.apply(tradeId, result, { playerId, reply });
      return undefined;
    }
    if (this.started.get(playerId) !== tradeId) return this.refusalFor(playerId, tradeId);
    this.cancelStarted(tradeId, playerId, "cancelled");
    return undefined;
  }

  /**
   * Why a player's trade message naming `tradeId` finds nothing to act on here: a trade of others is
   * not its own; its own is at the wrong stage (offers and accepts while its request is pending, an
   * answer to a request once the trade started); no trade has that id any more.
   */
  refusalFor(playerId: string, tradeId: string): TradeErrorReason {
    const pending = this.pending.get(tradeId);
    if (pending)
      return pending.sides.some((side) => side.player.id === playerId) ? "wrong_stage" : "not_participant";
    if (this.started.get(playerId) === tradeId) return "wrong_stage";
    for (const started of this.started.values()) if (started === tradeId) return "not_participant";
    return "not_found";
  }

  /** A started trade's room has closed (completed, cancelled or expired). */
  ended(tradeId: string): void {
    for (const [playerId, id] of this.started) if (id === tradeId) this.started.delete(playerId);
  }

  tradeOf(playerId: string): string | undefined {
    return this.started.get(playerId);
  }

  /** What the player's leaving ends, by id: the requests it is in and, with `started`, its trade. */
  endedBy(playerId: string, started: boolean): string[] {
    const ids = [...this.pending.values()]
      .filter((trade) => trade.sides.some((side) => side.player.id === playerId))
      .map((trade) => trade.id);
    const trade = started ? this.started.get(playerId) : undefined;
    return trade === undefined ? ids : [...ids, trade];
  }

  /** A player dropped, left or died: their requests and their started trade end at once. */
  playerGone(playerId: string, reason: PlayerGoneReason): void {
    for (const trade of [...this.pending.values()]) {
      if (trade.sides.some((side) => side.player.id === playerId)) {
        this.apply(trade.id, cancelTrade(trade, playerId, reason));
      }
    }
    const started = this.started.get(playerId);
    if (started) this.cancelStarted(started, playerId, reason);
  }

  /** The world is shutting down: every request and started trade ends now, for both players. */
  shutdown(): void {
    for (const trade of [...this.pending.values()]) {
      this.apply(trade.id, cancelTrade(trade, trade.sides[0].player.id, "server_shutdown"));
    }
    const cancelled = new Set<string>();
    for (const [playerId, tradeId] of this.started) {
      if (!cancelled.has(tradeId)) this.cancelStarted(tradeId, playerId, "server_shutdown");
      cancelled.add(tradeId);
    }
  }

  /** Unanswered requests expire after 30 s. */
  expire(now: number): void {
    for (const trade of [...this.pending.values()]) {
      const { trade: next, events } = expireTrade(trade, now);
      if (next.stage === "cancelled") {
        this.pending.delete(trade.id);
        this.emit(events);
      }
    }
  }

  /** Cancels a started trade through its room, or once its room is open if it is still opening. */
  private cancelStarted(tradeId: string, playerId: string, reason: TradeEndReason): void {
    if (!this.opening.has(tradeId)) this.world.cancelStarted(tradeId, playerId, reason);
    else if (!this.opening.get(tradeId)) this.opening.set(tradeId, { playerId, reason });
  }

  /** Whether the two players stand too far apart to trade: to request, to accept, and to complete. */
  tooFar(a: string, b: string): boolean {
    return (this.world.distance(a, b) ?? Number.POSITIVE_INFINITY) > TRADE_DISTANCE;
  }

  /** Ends a pending request with the outcome of `result`. */
  private apply(tradeId: string, result: TradeResult, cause?: Cause): void {
    if (!result.ok) return;
    this.pending.delete(tradeId);
    this.emit(result.events, cause);
  }

  private emit(events: readonly TradeEvent[], cause?: Cause): void {
    sendTradeEvents(events, (to, event, data) => this.world.send(to, event, data), cause);
  }
}
