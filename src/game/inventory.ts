// Pure functions over a 28-slot inventory: each returns a new array sorted by slot and never
// mutates its input. Quantities stay in 1..MAX_STACK: additions clamp and report what did not fit.
import type { InventoryEntry } from "./character-state.js";
import { INVENTORY_SLOTS, type ItemDef, MAX_STACK } from "./types.js";

export type Stacking = Pick<ItemDef, "id" | "stackable">;

export function isValidSlot(slot: number): boolean {
  return Number.isInteger(slot) && slot >= 0 && slot < INVENTORY_SLOTS;
}

export function entryAt(inventory: readonly InventoryEntry[], slot: number): InventoryEntry | undefined {
  return inventory.find((entry) => entry.slot === slot);
}

export function freeSlots(inventory: readonly InventoryEntry[]): number {
  return INVENTORY_SLOTS - inventory.length;
}

export function countItem(inventory: readonly InventoryEntry[], itemId: string): number {
  let total = 0;
  for (const entry of inventory) if (entry.itemId === itemId) total += entry.quantity;
  return total;
}

function firstFreeSlot(inventory: readonly InventoryEntry[]): number | undefined {
  const used = new Set(inventory.map((entry) => entry.slot));
  for (let slot = 0; slot < INVENTORY_SLOTS; slot++) if (!used.has(slot)) return slot;
  return undefined;
}

/**
 * The whole units a quantity asks for: none for NaN or less than one, and for Infinity ("all") the
 * largest safe count. Callers validate their input; this keeps a slip from turning into lost items.
 */
export function unitsOf(quantity: number): number {
  return Number.isNaN(quantity) ? 0 : Math.max(0, Math.floor(Math.min(quantity, Number.MAX_SAFE_INTEGER)));
}

function sorted(inventory: InventoryEntry[]): InventoryEntry[] {
  return inventory.sort((a, b) => a.slot - b.slot);
}

/**
 * Adds up to `quantity` of an item. A stackable item joins its one stack (clamped at MAX_STACK,
 * never a second stack); any other item takes one free slot per unit.
 */
export function addItem(
  inventory: readonly InventoryEntry[],
  item: Stacking,
  quantity: number,
): { inventory: InventoryEntry[]; added: number; remaining: number } {
  const wanted = unitsOf(quantity);
  const next = inventory.map((entry) => ({ ...entry }));
  let added = 0;
  if (item.stackable) {
    const stack = next.find((entry) => entry.itemId === item.id);
    if (stack) {
      added = Math.min(wanted, MAX_STACK - stack.quantity);
      stack.quantity += added;
    } else {
      const slot = firstFreeSlot(next);
      added = slot === undefined ? 0 : Math.min(wanted, MAX_STACK);
      if (slot !== undefined && added > 0) next.push({ slot, itemId: item.id, quantity: added });
    }
  } else {
    while (added < wanted) {
      const slot = firstFreeSlot(next);
      if (slot === undefined) break;
      next.push({ slot, itemId: item.id, quantity: 1 });
      added++;
    }
  }
  return { inventory: sorted(next), added, remaining: wanted - added };
}

/** Takes up to `quantity` from one slot; the slot empties when nothing is left. */
export function removeFromSlot(
  inventory: readonly InventoryEntry[],
  slot: number,
  quantity: number,
): { inventory: InventoryEntry[]; removed: number } {
  const entry = entryAt(inventory, slot);
  const removed = entry ? Math.min(entry.quantity, unitsOf(quantity)) : 0;
  const next = inventory
    .map((other) => (other.slot === slot ? { ...other, quantity: other.quantity - removed } : { ...other }))
    .filter((other) => other.quantity > 0);
  return { inventory: next, removed };
}

/** Takes up to `quantity` of an item across slots, lowest slot first. */
export function removeItem(
  inventory: readonly InventoryEntry[],
  itemId: string,
  quantity: number,
): { inventory: InventoryEntry[]; removed: number } {
  let wanted = unitsOf(quantity);
  const next: InventoryEntry[] = [];
  for (const entry of inventory) {
    const take = entry.itemId === itemId ? Math.min(wanted, entry.quantity) : 0;
    wanted -= take;
    if (entry.quantity > take) next.push({ ...entry, quantity: entry.quantity - take });
  }
  return { inventory: next, removed: unitsOf(quantity) - wanted };
}

/**
 * Takes up to `quantity` of the item in `slot`: that slot first, then the other slots holding the same
 * item (an unstackable item takes one slot a unit), lowest first. The slot the player named goes first,
 * so a copy offered in a trade from another slot is taken only when more is asked for than the rest hold.
 */
export function removeStartingAt(
  inventory: readonly InventoryEntry[],
  slot: number,
  quantity: number,
): { inventory: InventoryEntry[]; removed: number } {
  const entry = entryAt(inventory, slot);
  const first = removeFromSlot(inventory, slot, quantity);
  if (!entry || first.removed === unitsOf(quantity)) return first;
  const rest = removeItem(first.inventory, entry.itemId, unitsOf(quantity) - first.removed);
  return { inventory: rest.inventory, removed: first.removed + rest.removed };
}

/** Moves the entry of `from` to `to`, swapping with whatever `to` held. */
export function moveSlot(inventory: readonly InventoryEntry[], from: number, to: number): InventoryEntry[] {
  return sorted(
    inventory.map((entry) => {
      if (entry.slot === from) return { ...entry, slot: to };
      if (entry.slot === to) return { ...entry, slot: from };
      return { ...entry };
    }),
  );
}
