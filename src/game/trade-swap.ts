// The swap that ends a trade, all or nothing, on the inventories the database transaction has locked.
import type { InventoryEntry } from "./character-state.js";
import { addItem, entryAt, removeFromSlot } from "./inventory.js";
import { isPositiveInteger, type TradeOffer } from "./trade.js";
import { offerItems } from "./trade-views.js";
import type { ItemDef, ItemQuantity } from "./types.js";

/** Removes the offered quantities, after checking each slot still holds that item in that quantity. */
function takeOffer(
  inventory: readonly InventoryEntry[],
  offer: readonly TradeOffer[],
): InventoryEntry[] | undefined {
  let remaining = [...inventory];
  for (const { inventorySlot, itemId, quantity } of offer) {
    const entry = entryAt(remaining, inventorySlot);
    if (entry?.itemId !== itemId || !isPositiveInteger(quantity) || entry.quantity < quantity)
      return undefined;
    remaining = removeFromSlot(remaining, inventorySlot, quantity).inventory;
  }
  return remaining;
}

function giveItems(
  inventory: readonly InventoryEntry[],
  received: readonly ItemQuantity[],
  items: ReadonlyMap<string, ItemDef>,
): InventoryEntry[] | undefined {
  let next = [...inventory].sort((a, b) => a.slot - b.slot);
  for (const { itemId, quantity } of received) {
    const stacking = { id: itemId, stackable: items.get(itemId)?.stackable ?? false };
    const result = addItem(next, stacking, quantity);
    if (result.remaining > 0) return undefined;
    next = result.inventory;
  }
  return next;
}

export type TradeSwapResult =
  | {
      ok: true;
      invA: InventoryEntry[];
      invB: InventoryEntry[];
      receivedA: ItemQuantity[];
      receivedB: ItemQuantity[];
    }
  | { ok: false; reason: "insufficient_items" | "inventory_full" };

/**
 * The swap itself, shared by the database transaction and the tests: all or nothing. Offered
 * items leave first, so the space they free counts for what arrives; received stackables join
 * the existing stack, non-stackables take one free slot each.
 */
export function applyTradeToInventories(
  invA: readonly InventoryEntry[],
  invB: readonly InventoryEntry[],
  offerA: readonly TradeOffer[],
  offerB: readonly TradeOffer[],
  items: ReadonlyMap<string, ItemDef>,
): TradeSwapResult {
  const keptA = takeOffer(invA, offerA);
  const keptB = takeOffer(invB, offerB);
  if (keptA === undefined || keptB === undefined) return { ok: false, reason: "insufficient_items" };
  const receivedA = offerItems(offerB);
  const receivedB = offerItems(offerA);
  const nextA = giveItems(keptA, receivedA, items);
  const nextB = giveItems(keptB, receivedB, items);
  if (nextA === undefined || nextB === undefined) return { ok: false, reason: "inventory_full" };
  return { ok: true, invA: nextA, invB: nextB, receivedA, receivedB };
}
