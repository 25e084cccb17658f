// Deposit and withdraw between an inventory and a bank. Everything stacks in the bank: one row
// per item id, whatever the item's stackability, clamped at MAX_STACK.
import type { InventoryEntry } from "./character-state.js";
import { type GameError, gameError } from "./errors.js";
import { addItem, entryAt, removeStartingAt, type Stacking } from "./inventory.js";
import { chebyshev } from "./tile.js";
import { type ItemQuantity, MAX_STACK, type Tile } from "./types.js";

/** Standing within one tile (diagonals included) of a booth or a banker opens the bank. */
export const BANK_REACH = 1;

export function canReachBank(position: Tile, bankTiles: Iterable<Tile>): boolean {
  for (const tile of bankTiles) if (chebyshev(position, tile) <= BANK_REACH) return true;
  return false;
}

export interface BankTransfer {
  inventory: InventoryEntry[];
  bank: ItemQuantity[];
  moved: number;
}

function isPositiveQuantity(quantity: number): boolean {
  return Number.isInteger(quantity) && quantity >= 1;
}

function withBankDelta(bank: readonly ItemQuantity[], itemId: string, delta: number): ItemQuantity[] {
  const next = bank.map((row) =>
    row.itemId === itemId ? { itemId, quantity: row.quantity + delta } : { ...row },
  );
  if (!bank.some((row) => row.itemId === itemId)) next.push({ itemId, quantity: delta });
  return next.filter((row) => row.quantity > 0);
}

/**
 * Moves up to `quantity` of the item in `slot` into the bank. Unstackable items are taken from
 * every slot holding that item, as a player depositing "10 logs" expects.
 */
export function deposit(
  inventory: readonly InventoryEntry[],
  bank: readonly ItemQuantity[],
  slot: number,
  quantity: number,
  item: Stacking,
): BankTransfer | GameError {
  const entry = entryAt(inventory, slot);
  if (!entry || entry.itemId !== item.id)
    return gameError("invalid_slot", `Inventory slot ${slot} is empty.`);
  if (!isPositiveQuantity(quantity)) return gameError("bad_request", "Quantity must be a positive integer.");
  const banked = bank.find((row) => row.itemId === item.id)?.quantity ?? 0;
  const room = MAX_STACK - banked;
  if (room === 0) return gameError("bank_full", `The bank cannot hold more ${item.id}.`);
  const wanted = Math.min(quantity, room);
  const taken = removeStartingAt(inventory, slot, wanted);
  return {
    inventory: taken.inventory,
    bank: withBankDelta(bank, item.id, taken.removed),
    moved: taken.removed,
  };
}

/** Moves up to `quantity` of an item from the bank into the inventory, as much as fits. */
export function withdraw(
  inventory: readonly InventoryEntry[],
  bank: readonly ItemQuantity[],
  item: Stacking,
  quantity: number,
): BankTransfer | GameError {
  const banked = bank.find((row) => row.itemId === item.id)?.quantity ?? 0;
  if (banked === 0) return gameError("not_found", `There is no ${item.id} in the bank.`);
  if (!isPositiveQuantity(quantity)) return gameError("bad_request", "Quantity must be a positive integer.");
  const added = addItem(inventory, item, Math.min(quantity, banked));
  if (added.added === 0) return gameError("inventory_full", "Your inventory is full.");
  return { inventory: added.inventory, bank: withBankDelta(bank, item.id, -added.added), moved: added.added };
}
