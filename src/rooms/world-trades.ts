import { randomUUID } from "node:crypto";
import {
  cancelTrade,
  expireTrade,
  requestTrade,
  respondToTrade,
  type Trade,
  type TradeErrorReason,
  type TradeEvent,
} from "../game/trade.js";

export type PlayerGoneReason = "partner_disconnected" | "player_died";
/** Why the world ends a started trade on its own. */
export type TradeEndReason = PlayerGoneReason | "server_shutdown";

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

  constructor(private readonly world: TradeWorld) {}

  /** Sends the target `tradeIncoming`, or returns why the request is refused. */
  request(fromId: string, targetId: string, now: number): TradeErrorReason | undefined {
    if (fromId === targetId) return "self_trade";
    if (!this.world.isOnline(targetId)) return "player_offline";
    if (this.started.has(fromId) || this.started.has(targetId)) return "already_trading";
    if ((this.world.distance(fromId, targetId) ?? Number.POSITIVE_INFINITY) > TRADE_DISTANCE)
      return "too_far";
    // One outgoing request at a time: a new one replaces the previous.
    for (const trade of this.pending.values()) {
      if (trade.sides[0].player.id === fromId) this.apply(trade.id, cancelTrade(trade, fromId));
    }
    const result = requestTrade(
      randomUUID(),
      { id: fromId, name: this.world.nameOf(fromId) },
      { id: targetId, name: this.world.nameOf(targetId) },
      now,
    );
    if (!result.ok) return result.reason;
    this.pending.set(result.trade.id, result.trade);
    this.emit(result.events);
    return undefined;
  }

  /** Starts or declines the trade, or returns why the answer is refused. */
  async respond(
    playerId: string,
    tradeId: string,
    accept: boolean,
    now: number,
  ): Promise<TradeErrorReason | undefined> {
    const trade = this.pending.get(tradeId);
    if (!trade) return "not_found";
    const result = respondToTrade(trade, playerId, accept, now);
    if (!result.ok) return result.reason;
    const [a, b] = [trade.sides[0].player.id, trade.sides[1].player.id];
    if (accept && (this.started.has(a) || this.started.has(b))) return "already_trading";
    this.pending.delete(tradeId);
    if (!accept) {
      this.emit(result.events);
      return undefined;
    }
    this.started.set(a, tradeId);
    this.started.set(b, tradeId);
    try {
      await this.world.openTradeRoom(result.trade);
    } catch (error) {
      this.ended(tradeId);
      throw error;
    }
    this.emit(result.events);
    // Each player is in one trade at a time: their other requests are void now.
    for (const other of [...this.pending.values()]) {
      const involved = other.sides.find((side) => side.player.id === a || side.player.id === b);
      if (involved) this.apply(other.id, cancelTrade(other, involved.player.id, "partner_busy"));
    }
    return undefined;
  }

  /** A started trade's room has closed (completed, cancelled or expired). */
  ended(tradeId: string): void {
    for (const [playerId, id] of this.started) if (id === tradeId) this.started.delete(playerId);
  }

  tradeOf(playerId: string): string | undefined {
    return this.started.get(playerId);
  }

  /** A player dropped, left or died: their requests and their started trade end at once. */
  playerGone(playerId: string, reason: PlayerGoneReason): void {
    for (const trade of [...this.pending.values()]) {
      if (trade.sides.some((side) => side.player.id === playerId)) {
        this.apply(trade.id, cancelTrade(trade, playerId, reason));
      }
    }
    const started = this.started.get(playerId);
    if (started) this.world.cancelStarted(started, playerId, reason);
  }

  /** The world is shutting down: every request and started trade ends now, for both players. */
  shutdown(): void {
    for (const trade of [...this.pending.values()]) {
      this.apply(trade.id, cancelTrade(trade, trade.sides[0].player.id, "server_shutdown"));
    }
    const cancelled = new Set<string>();
    for (const [playerId, tradeId] of this.started) {
      if (!cancelled.has(tradeId)) this.world.cancelStarted(tradeId, playerId, "server_shutdown");
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

  private apply(tradeId: string, result: ReturnType<typeof cancelTrade>): void {
    if (!result.ok) return;
    this.pending.delete(tradeId);
    this.emit(result.events);
  }

  private emit(events: readonly TradeEvent[]): void {
    for (const event of events) this.world.send(event.to, event.event, event.data);
  }
}
