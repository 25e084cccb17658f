// What a trade shows each player: its own offer and the partner's, as the protocol's tradeUpdated and
// tradeConfirmScreen carry them, and what an offer amounts to.
import type { Trade, TradeOffer, TradeSide } from "./trade.js";
import type { ItemDef, ItemQuantity } from "./types.js";

export interface TradeUpdatedView {
  tradeId: string;
  myOffer: TradeOffer[];
  theirOffer: TradeOffer[];
  myAccepted: boolean;
  theirAccepted: boolean;
}

export interface TradeConfirmView {
  tradeId: string;
  myOffer: TradeOffer[];
  theirOffer: TradeOffer[];
  values: { mine: number; theirs: number };
}

/** Item quantities of an offer, one entry per item id in order of first appearance. */
export function offerItems(offer: readonly TradeOffer[]): ItemQuantity[] {
  const quantities = new Map<string, number>();
  for (const { itemId, quantity } of offer) quantities.set(itemId, (quantities.get(itemId) ?? 0) + quantity);
  return [...quantities].map(([itemId, quantity]) => ({ itemId, quantity }));
}

/** What an offer is worth at the manifests' item values; unknown ids are worth 0. */
export function offerValue(offer: readonly TradeOffer[], items: ReadonlyMap<string, ItemDef>): number {
  return offer.reduce((sum, { itemId, quantity }) => sum + (items.get(itemId)?.value ?? 0) * quantity, 0);
}

function sidesFor(trade: Trade, playerId: string): { me: TradeSide; them: TradeSide } {
  const [first, second] = trade.sides;
  if (first.player.id === playerId) return { me: first, them: second };
  if (second.player.id === playerId) return { me: second, them: first };
  throw new RangeError(`${playerId} is not in trade ${trade.id}`);
}

export function tradeUpdatedView(trade: Trade, playerId: string): TradeUpdatedView {
  const { me, them } = sidesFor(trade, playerId);
  return {
    tradeId: trade.id,
    myOffer: [...me.offer],
    theirOffer: [...them.offer],
    myAccepted: me.accepted,
    theirAccepted: them.accepted,
  };
}

export function tradeConfirmView(
  trade: Trade,
  playerId: string,
  items: ReadonlyMap<string, ItemDef>,
): TradeConfirmView {
  const { me, them } = sidesFor(trade, playerId);
  return {
    tradeId: trade.id,
    myOffer: [...me.offer],
    theirOffer: [...them.offer],
    values: { mine: offerValue(me.offer, items), theirs: offerValue(them.offer, items) },
  };
}
