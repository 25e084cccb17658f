// Stores: a shopkeeper sells its store's items for coins, from a stock that runs down as players buy
// and grows back over time, and buys tradeable items for part of their value.
import type { InventoryEntry } from "./character-state.js";
import { type GameError, gameError } from "./errors.js";
import {
  addItem,
  countItem,
  entryAt,
  removeItem,
  removeStartingAt,
  type Stacking,
  unitsOf,
} from "./inventory.js";
import {
  COINS_ITEM_ID,
  INVENTORY_SLOTS,
  type ItemDef,
  MAX_STACK,
  type StoreDef,
  TICKS_PER_MINUTE,
} from "./types.js";

const COINS: Stacking = { id: COINS_ITEM_ID, stackable: true };
/** What a store pays for an item: this share of its manifest value, rounded down (RuneScape's general stores pay 40 %). */
export const SELL_SHARE = 0.4;
/** Every this many ticks (a minute) each item's stock moves one unit back towards the store's own. */
export const RESTOCK_TICKS = TICKS_PER_MINUTE;

/** A store's live stock, by item id. */
export interface StoreShelf {
  readonly def: StoreDef;
  readonly stock: Map<string, number>;
}

/** The `store:stock` event's data: what the store sells now, how many and at what price. */
export interface StoreStock {
  targetId: string;
  storeId: string;
  name: string;
  items: { itemId: string; stock: number; price: number }[];
}

export function openShelf(def: StoreDef): StoreShelf {
  return { def, stock: new Map(def.items.map((item) => [item.itemId, item.stock])) };
}

export function shelfView(shelf: StoreShelf, targetId: string): StoreStock {
  return {
    targetId,
    storeId: shelf.def.id,
    name: shelf.def.name,
    items: shelf.def.items.map(({ itemId, price }) => ({
      itemId,
      stock: shelf.stock.get(itemId) ?? 0,
      price,
    })),
  };
}

/** One unit back towards each item's own stock: bought-out items return, sold-in surplus goes. Whether any moved. */
export function restock(shelf: StoreShelf): boolean {
  let moved = false;
  for (const { itemId, stock: own } of shelf.def.items) {
    const now = shelf.stock.get(itemId) ?? 0;
    if (now === own) continue;
    shelf.stock.set(itemId, now + Math.sign(own - now));
    moved = true;
  }
  return moved;
}

export function sellPrice(item: Pick<ItemDef, "value">): number {
  return Math.floor(item.value * SELL_SHARE);
}

/** A purchase or a sale worked out, not yet made: the player's inventory and the shelf after it. */
export interface Deal {
  inventory: InventoryEntry[];
  /** Units of the item that changed hands. */
  units: number;
  coins: number;
  /** The item's stock on the shelf after the deal (none when the store does not keep the item). */
  shelved: { itemId: string; stock: number } | undefined;
  /** Why fewer units were bought than asked for, said to the buyer. */
  short?: string;
}

export function closeDeal(shelf: StoreShelf, deal: Deal): void {
  if (deal.shelved) shelf.stock.set(deal.shelved.itemId, deal.shelved.stock);
}

/** Buys up to `quantity` of `item`: as many as the stock, the player's coins and the inventory's room allow. */
export function buyFrom(
  shelf: StoreShelf,
  inventory: readonly InventoryEntry[],
  item: ItemDef,
  quantity: number,
): Deal | GameError {
  const offer = shelf.def.items.find((candidate) => candidate.itemId === item.id);
  if (!offer) return gameError("not_found", `${shelf.def.name} does not sell ${item.name}.`);
  const stock = shelf.stock.get(item.id) ?? 0;
  if (stock === 0) return gameError("out_of_stock", `${shelf.def.name} has no ${item.name} left.`);
  const affordable = offer.price === 0 ? stock : Math.floor(countItem(inventory, COINS.id) / offer.price);
  if (affordable === 0)
    return gameError("not_enough_coins", `You need ${offer.price} coins to buy ${item.name}.`);
  // Paying for the most may empty the coins' slot, making room for one more item: they are tried first.
  // Fewer leave the coins their slot, so then as many fit as fit beside the coins as they are: worked out
  // at once, as trying one fewer at a time would copy the inventory once per unit of a big stock.
  const most = Math.min(quantity, stock, affordable, item.stackable ? MAX_STACK : INVENTORY_SLOTS);
  for (const units of [most, addItem(inventory, item, most - 1).added]) {
    if (units === 0) continue;
    const paid = removeItem(inventory, COINS.id, units * offer.price).inventory;
    const bought = addItem(paid, item, units);
    if (bought.added === units) {
      const shelved = { itemId: item.id, stock: stock - units };
      const deal: Deal = { inventory: bought.inventory, units, coins: units * offer.price, shelved };
      if (units < quantity) deal.short = shortPurchase(units, quantity, item, stock, affordable);
      return deal;
    }
  }
  return gameError("inventory_full", "Your inventory is full.");
}

/** Why a purchase took fewer units than asked: the stock, the coins or else the inventory's room. */
function shortPurchase(
  units: number,
  asked: number,
  item: ItemDef,
  stock: number,
  affordable: number,
): string {
  const why =
    units === stock
      ? "the store has no more"
      : units === affordable
        ? "your coins pay for no more"
        : "your inventory has no room for more";
  return `${item.name}: you bought ${units} of the ${asked} you asked for, as ${why}.`;
}

/**
 * Sells up to `quantity` of the item in `slot` (an unstackable item from as many slots, as a bank
 * deposit takes it) for its sell price each. Items the store sells go back on its shelf.
 */
export function sellTo(
  shelf: StoreShelf,
  inventory: readonly InventoryEntry[],
  slot: number,
  quantity: number,
  item: ItemDef,
): Deal | GameError {
  const entry = entryAt(inventory, slot);
  if (!entry) return gameError("invalid_slot", `Inventory slot ${slot} is empty.`);
  const price = sellPrice(item);
  if (item.id === COINS.id || !item.tradeable || price === 0)
    return gameError("invalid_target", `${shelf.def.name} will not buy ${item.name}.`);
  const sell = (units: number) =>
    addItem(removeStartingAt(inventory, slot, units).inventory, COINS, units * price);
  let units = Math.min(unitsOf(quantity), item.stackable ? entry.quantity : countItem(inventory, item.id));
  if (units === 0) return gameError("bad_request", "Sell one at least.");
  let paid = sell(units);
  // Coins past a full stack cannot be carried: then as many are sold as their coins fit in the stack.
  if (paid.remaining > 0 && paid.added >= price) {
    units = Math.floor(paid.added / price);
    paid = sell(units);
  }
  if (paid.remaining > 0) return gameError("inventory_full", "You have no room for the coins.");
  const stock = shelf.stock.get(item.id);
  const shelved =
    stock === undefined ? undefined : { itemId: item.id, stock: Math.min(MAX_STACK, stock + units) };
  return { inventory: paid.inventory, units, coins: units * price, shelved };
}
