/*
 * The trade between two players, as a pure state machine. It never touches an inventory: offers
 * are validated against the inventory view the caller passes in, and the swap itself is
 * `applyTradeToInventories` (trade-swap.ts), which the database transaction runs on freshly locked rows.
 *
 * Stages and who may do what:
 *   pending     the target may respond (accept → offer, decline → cancelled "declined");
 *               either side may cancel; after 30 s unanswered it expires.
 *   offer       both may add and remove items and accept; any change to either offer clears
 *               both accepts; both accepted → confirm.
 *   confirm     offers are frozen (adding or removing is `wrong_stage`); both may accept or
 *               cancel; both accepted → committing.
 *   committing  the caller runs the database swap; nothing may change it, not even a cancel or a
 *               disconnect, because the transaction alone decides whether items moved. Its outcome
 *               is `completeTrade` (→ completed, `tradeCompleted` to both) or `failTradeCommit`
 *               (→ cancelled "commit_failed", after a `tradeError` to both saying why).
 *   completed, cancelled  final.
 *   In offer or confirm, 5 minutes without a successful operation expires the trade.
 *
 * Decisions the spec leaves open (the caller that knows the world enforces the first four, with
 * the reasons defined here):
 *   - A player is in at most one started trade (offer, confirm, committing). Requesting a player
 *     who is, or while being in one, is refused `already_trading`.
 *   - A player has at most one outgoing pending request: a new request replaces it (the old one
 *     is cancelled "cancelled"). A player may have several incoming pending requests; when one
 *     is accepted, every other pending request of either player is cancelled "partner_busy".
 *   - Requests to oneself (`self_trade`, checked here), to an offline player (`player_offline`)
 *     or beyond trade range (`too_far`) are refused.
 *   - A dropped connection cancels at once: `cancelTrade(..., "partner_disconnected")`; the player
 *     who left is told "disconnected" wherever it still listens.
 *   - A player's death cancels their trades at once, for both: `cancelTrade(..., "player_died")`.
 *   - A declined, cancelled or expired request may be followed at once by a new one.
 *   - Untradeable items cannot be offered (`untradeable`). Adding from a slot already offered
 *     adds to that offer, and asking for more than the slot holds is refused
 *     (`insufficient_items`); removing more than is offered removes all of it.
 *   - Accepting twice is harmless and sends nothing. The canceller gets `tradeCancelled` too;
 *     reasons about the partner ("partner_disconnected", "partner_busy") go to the partner.
 *   - A received item that does not fit (no free slot, or a stack that would pass MAX_STACK) fails
 *     the whole swap with `inventory_full`; nothing moves.
 *   - An offered item that left its slot since (eaten, banked, dropped) is found at the next accept
 *     (`offersAsHeld`): the offer keeps what the slot still holds, both accepts are cleared, the trade
 *     goes back to the offer stage, and both are told (`tradeUpdated`, then `tradeError`
 *     `offer_changed`), rather than accept a swap that would fail `insufficient_items`.
 */
import type { InventoryEntry } from "./character-state.js";
import { entryAt, isValidSlot } from "./inventory.js";
import { TRADE_ERROR_MESSAGES, type TradeCancelReason, type TradeErrorReason } from "./trade-reasons.js";
import {
  offerItems,
  type TradeConfirmView,
  type TradeUpdatedView,
  tradeConfirmView,
  tradeUpdatedView,
} from "./trade-views.js";
import type { ItemDef, ItemQuantity } from "./types.js";

export const TRADE_REQUEST_EXPIRY_MS = 30_000;
export const TRADE_INACTIVITY_EXPIRY_MS = 5 * 60_000;

export type TradeStage = "pending" | "offer" | "confirm" | "committing" | "completed" | "cancelled";

export interface TradeOffer {
  inventorySlot: number;
  itemId: string;
  quantity: number;
}

export interface TradeParty {
  id: string;
  name: string;
}

export interface TradeSide {
  player: TradeParty;
  offer: readonly TradeOffer[];
  accepted: boolean;
}

export interface Trade {
  id: string;
  stage: TradeStage;
  /** The initiator, then the target. */
  sides: readonly [TradeSide, TradeSide];
  requestedAt: number;
  lastActivityAt: number;
  cancelReason?: TradeCancelReason;
}

/** A message for one player, named and shaped as in the protocol. */
export type TradeEvent =
  | {
      to: string;
      event: "tradeIncoming";
      data: { tradeId: string; fromPlayerId: string; fromPlayerName: string };
    }
  | { to: string; event: "tradeStarted"; data: { tradeId: string; partnerId: string; partnerName: string } }
  | { to: string; event: "tradeUpdated"; data: TradeUpdatedView }
  | { to: string; event: "tradeConfirmScreen"; data: TradeConfirmView }
  | { to: string; event: "tradeCompleted"; data: { tradeId: string; receivedItems: ItemQuantity[] } }
  | { to: string; event: "tradeCancelled"; data: { tradeId: string; reason: TradeCancelReason } }
  | { to: string; event: "tradeError"; data: { tradeId: string; reason: TradeErrorReason; message: string } };

export interface TradeTransition {
  trade: Trade;
  events: TradeEvent[];
}
export interface TradeRefusal {
  ok: false;
  reason: TradeErrorReason;
}
export type TradeResult = ({ ok: true } & TradeTransition) | TradeRefusal;

type SideIndex = 0 | 1;

function refuse(reason: TradeErrorReason): TradeRefusal {
  return { ok: false, reason };
}

function sideIndexOf(trade: Trade, playerId: string): SideIndex | undefined {
  if (trade.sides[0].player.id === playerId) return 0;
  if (trade.sides[1].player.id === playerId) return 1;
  return undefined;
}

/** The acting player's side, if they belong to the trade and it is at one of `stages`. */
function actor(trade: Trade, playerId: string, stages: readonly TradeStage[]): SideIndex | TradeRefusal {
  const index = sideIndexOf(trade, playerId);
  if (index === undefined) return refuse("not_participant");
  if (!stages.includes(trade.stage)) return refuse("wrong_stage");
  return index;
}

function withSide(trade: Trade, index: SideIndex, change: Partial<TradeSide>): Trade {
  const sides: [TradeSide, TradeSide] = [trade.sides[0], trade.sides[1]];
  sides[index] = { ...sides[index], ...change };
  return { ...trade, sides };
}

function bothAcceptsCleared(trade: Trade): Trade {
  return {
    ...trade,
    sides: [
      { ...trade.sides[0], accepted: false },
      { ...trade.sides[1], accepted: false },
    ],
  };
}

function ok(trade: Trade, events: TradeEvent[]): TradeResult {
  return { ok: true, trade, events };
}

function playerIds(trade: Trade): [string, string] {
  return [trade.sides[0].player.id, trade.sides[1].player.id];
}

function updatedEvents(trade: Trade): TradeEvent[] {
  return playerIds(trade).map((to) => ({ to, event: "tradeUpdated", data: tradeUpdatedView(trade, to) }));
}

function cancelled(trade: Trade, reason: TradeCancelReason, recipients: readonly string[]): TradeTransition {
  return {
    trade: { ...trade, stage: "cancelled", cancelReason: reason },
    events: recipients.map((to) => ({ to, event: "tradeCancelled", data: { tradeId: trade.id, reason } })),
  };
}

export function requestTrade(tradeId: string, from: TradeParty, to: TradeParty, now: number): TradeResult {
  if (from.id === to.id) return refuse("self_trade");
  const side = (player: TradeParty): TradeSide => ({ player, offer: [], accepted: false });
  const trade: Trade = {
    id: tradeId,
    stage: "pending",
    sides: [side(from), side(to)],
    requestedAt: now,
    lastActivityAt: now,
  };
  return ok(trade, [
    {
      to: to.id,
      event: "tradeIncoming",
      data: { tradeId, fromPlayerId: from.id, fromPlayerName: from.name },
    },
  ]);
}

/** Only the requested player answers; for the initiator that is `not_participant`. */
export function respondToTrade(trade: Trade, playerId: string, accept: boolean, now: number): TradeResult {
  const index = actor(trade, playerId, ["pending"]);
  if (typeof index !== "number") return index;
  if (index === 0) return refuse("not_participant");
  if (!accept) return { ok: true, ...cancelled(trade, "declined", playerIds(trade)) };
  const started: Trade = { ...trade, stage: "offer", lastActivityAt: now };
  const events = trade.sides.map((side, i): TradeEvent => {
    const partner = trade.sides[1 - i]!.player;
    return {
      to: side.player.id,
      event: "tradeStarted",
      data: { tradeId: trade.id, partnerId: partner.id, partnerName: partner.name },
    };
  });
  return ok(started, events);
}

function withOffer(trade: Trade, index: SideIndex, offer: TradeOffer[], now: number): TradeResult {
  const changed = { ...bothAcceptsCleared(withSide(trade, index, { offer })), lastActivityAt: now };
  return ok(changed, updatedEvents(changed));
}

export function isPositiveInteger(quantity: number): boolean {
  return Number.isInteger(quantity) && quantity >= 1;
}

export function addToOffer(
  trade: Trade,
  playerId: string,
  inventorySlot: number,
  quantity: number,
  inventory: readonly InventoryEntry[],
  items: ReadonlyMap<string, ItemDef>,
  now: number,
): TradeResult {
  const index = actor(trade, playerId, ["offer"]);
  if (typeof index !== "number") return index;
  const entry = isValidSlot(inventorySlot) ? entryAt(inventory, inventorySlot) : undefined;
  if (entry === undefined) return refuse("invalid_slot");
  if (!isPositiveInteger(quantity)) return refuse("invalid_quantity");
  if (items.get(entry.itemId)?.tradeable !== true) return refuse("untradeable");
  const offer = trade.sides[index].offer;
  const existing = offer.find((offered) => offered.inventorySlot === inventorySlot);
  const total = (existing?.quantity ?? 0) + quantity;
  if ((existing !== undefined && existing.itemId !== entry.itemId) || total > entry.quantity) {
    return refuse("insufficient_items");
  }
  const next = existing
    ? offer.map((offered) => (offered === existing ? { ...offered, quantity: total } : offered))
    : [...offer, { inventorySlot, itemId: entry.itemId, quantity }];
  return withOffer(trade, index, next, now);
}

/**
 * The trade with each offer cut to what its slots still hold in `inventories` (the initiator's, then
 * the target's): see the header. Undefined when every offer stands, or the trade is past its offers.
 */
export function offersAsHeld(
  trade: Trade,
  inventories: readonly [readonly InventoryEntry[], readonly InventoryEntry[]],
  now: number,
): TradeTransition | undefined {
  if (trade.stage !== "offer" && trade.stage !== "confirm") return undefined;
  const [first, second] = trade.sides.map((side, index) => heldOffer(side.offer, inventories[index]!));
  if (first === trade.sides[0].offer && second === trade.sides[1].offer) return undefined;
  const changed: Trade = {
    ...bothAcceptsCleared(withSide(withSide(trade, 0, { offer: first! }), 1, { offer: second! })),
    stage: "offer",
    lastActivityAt: now,
  };
  const reason = "offer_changed";
  const told = playerIds(changed).map(
    (to): TradeEvent => ({
      to,
      event: "tradeError",
      data: { tradeId: trade.id, reason, message: TRADE_ERROR_MESSAGES[reason] },
    }),
  );
  return { trade: changed, events: [...updatedEvents(changed), ...told] };
}

/** The offer as the inventory backs it: itself when it does, else its entries cut or left out. */
function heldOffer(
  offer: readonly TradeOffer[],
  inventory: readonly InventoryEntry[],
): readonly TradeOffer[] {
  const held = offer.flatMap((offered) => {
    const entry = entryAt(inventory, offered.inventorySlot);
    if (entry?.itemId !== offered.itemId) return [];
    return entry.quantity >= offered.quantity ? [offered] : [{ ...offered, quantity: entry.quantity }];
  });
  return held.length === offer.length && held.every((entry, index) => entry === offer[index]) ? offer : held;
}

/** Takes `quantity` (all of it when absent) of one slot's offer back. */
export function removeFromOffer(
  trade: Trade,
  playerId: string,
  inventorySlot: number,
  quantity: number | undefined,
  now: number,
): TradeResult {
  const index = actor(trade, playerId, ["offer"]);
  if (typeof index !== "number") return index;
  const offer = trade.sides[index].offer;
  const existing = offer.find((offered) => offered.inventorySlot === inventorySlot);
  if (existing === undefined) return refuse("invalid_slot");
  if (quantity !== undefined && !isPositiveInteger(quantity)) return refuse("invalid_quantity");
  const left = existing.quantity - Math.min(quantity ?? existing.quantity, existing.quantity);
  const next = offer.flatMap((offered) => {
    if (offered !== existing) return [offered];
    return left > 0 ? [{ ...offered, quantity: left }] : [];
  });
  return withOffer(trade, index, next, now);
}

export function acceptTrade(
  trade: Trade,
  playerId: string,
  items: ReadonlyMap<string, ItemDef>,
  now: number,
): TradeResult {
  const index = actor(trade, playerId, ["offer", "confirm"]);
  if (typeof index !== "number") return index;
  if (trade.sides[index].accepted) return ok(trade, []);
  const accepted = { ...withSide(trade, index, { accepted: true }), lastActivityAt: now };
  if (!accepted.sides[1 - index]!.accepted) return ok(accepted, updatedEvents(accepted));
  if (trade.stage === "confirm") return ok({ ...accepted, stage: "committing" }, []);
  const confirming: Trade = { ...bothAcceptsCleared(accepted), stage: "confirm" };
  const events = playerIds(confirming).map(
    (to): TradeEvent => ({ to, event: "tradeConfirmScreen", data: tradeConfirmView(confirming, to, items) }),
  );
  return ok(confirming, events);
}

/** `reason` is from the partner's point of view when it is not a plain "cancelled". */
export function cancelTrade(
  trade: Trade,
  playerId: string,
  reason:
    | "cancelled"
    | "partner_disconnected"
    | "partner_busy"
    | "server_shutdown"
    | "player_died" = "cancelled",
): TradeResult {
  const index = actor(trade, playerId, ["pending", "offer", "confirm"]);
  if (typeof index !== "number") return index;
  const toPartnerOnly = reason === "partner_disconnected" || reason === "partner_busy";
  const recipients = toPartnerOnly ? [trade.sides[1 - index]!.player.id] : playerIds(trade);
  const ended = cancelled(trade, reason, recipients);
  // The player who left is told too, wherever it still listens (its trade room, the login that replaced it).
  if (reason === "partner_disconnected")
    ended.events.push({
      to: playerId,
      event: "tradeCancelled",
      data: { tradeId: trade.id, reason: "disconnected" },
    });
  return { ok: true, ...ended };
}

/** Cancels an unanswered request after 30 s, or a started trade after 5 minutes without activity. */
export function expireTrade(trade: Trade, now: number): TradeTransition {
  const requestExpired = trade.stage === "pending" && now - trade.requestedAt >= TRADE_REQUEST_EXPIRY_MS;
  const idle =
    (trade.stage === "offer" || trade.stage === "confirm") &&
    now - trade.lastActivityAt >= TRADE_INACTIVITY_EXPIRY_MS;
  return requestExpired || idle ? cancelled(trade, "expired", playerIds(trade)) : { trade, events: [] };
}

/** A started trade that one of its players never came to: it ends for both, as expired. */
export function expireUnjoinedTrade(trade: Trade): TradeResult {
  if (trade.stage !== "offer" && trade.stage !== "confirm") return refuse("wrong_stage");
  return { ok: true, ...cancelled(trade, "expired", playerIds(trade)) };
}

/** The swap committed: each player receives the other's offer. */
export function completeTrade(trade: Trade): TradeResult {
  if (trade.stage !== "committing") return refuse("wrong_stage");
  const events = trade.sides.map(
    (side, i): TradeEvent => ({
      to: side.player.id,
      event: "tradeCompleted",
      data: { tradeId: trade.id, receivedItems: offerItems(trade.sides[1 - i]!.offer) },
    }),
  );
  return ok({ ...trade, stage: "completed" }, events);
}

/** The swap was refused; nothing moved. Both players learn why, and the trade is cancelled. */
export function failTradeCommit(trade: Trade, reason: TradeErrorReason): TradeResult {
  if (trade.stage !== "committing") return refuse("wrong_stage");
  const errors = playerIds(trade).map(
    (to): TradeEvent => ({
      to,
      event: "tradeError",
      data: { tradeId: trade.id, reason, message: TRADE_ERROR_MESSAGES[reason] },
    }),
  );
  const { trade: ended, events } = cancelled(trade, "commit_failed", playerIds(trade));
  return ok(ended, [...errors, ...events]);
}
