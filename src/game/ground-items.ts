// Items lying on the ground. A dropped item (or a kill's loot) is seen only by its owner for
// OWNER_ONLY_TICKS (60 s), then by everyone, and vanishes DESPAWN_TICKS (3 minutes) after it fell.
// An untradeable item is its owner's alone for as long as it lies: another player picking it up
// would have been handed it.
import type { InventoryEntry } from "./character-state.js";
import { type GameError, gameError } from "./errors.js";
import { addItem, entryAt, removeFromSlot, type Stacking } from "./inventory.js";
import type { ItemQuantity, Tile } from "./types.js";

export const OWNER_ONLY_TICKS = 100;
export const DESPAWN_TICKS = 300;

export interface GroundItem {
  id: string;
  itemId: string;
  quantity: number;
  position: Tile;
  /** Who sees it during the first OWNER_ONLY_TICKS; absent = everyone from the start. */
  ownerId?: string;
  /** Seen by its owner alone until it vanishes (an untradeable item), not only for OWNER_ONLY_TICKS. */
  keptForOwner?: boolean;
  droppedTick: number;
}

/** Whether only its owner may see the item yet. */
export function isOwnerOnly(item: GroundItem, tick: number): boolean {
  if (item.ownerId === undefined) return false;
  return item.keptForOwner === true || tick < item.droppedTick + OWNER_ONLY_TICKS;
}

export function isGroundItemVisible(item: GroundItem, viewerId: string, tick: number): boolean {
  return !isOwnerOnly(item, tick) || item.ownerId === viewerId;
}

/** Empties an inventory slot, giving what was in it: the world lays it on the ground. */
export function dropSlot(
  inventory: readonly InventoryEntry[],
  slot: number,
): { inventory: InventoryEntry[]; dropped: ItemQuantity } | GameError {
  const entry = entryAt(inventory, slot);
  if (!entry) return gameError("invalid_slot", `Inventory slot ${slot} is empty.`);
  const taken = removeFromSlot(inventory, slot, entry.quantity);
  return { inventory: taken.inventory, dropped: { itemId: entry.itemId, quantity: taken.removed } };
}

/** Picks up as much of a ground item as fits; the rest stays on the ground. */
export function pickUp(
  inventory: readonly InventoryEntry[],
  item: GroundItem,
  stacking: Stacking,
): { inventory: InventoryEntry[]; taken: number } | GameError {
  const added = addItem(inventory, stacking, item.quantity);
  if (added.added === 0) return gameError("inventory_full", "Your inventory is full.");
  return { inventory: added.inventory, taken: added.added };
}

/**
 * The world's ground items and their timeline. Every item lives the same number of ticks, so
 * items reach each milestone in the order they fell: two FIFO queues replace a per-tick scan.
 */
export class GroundItemStore {
  private readonly items = new Map<string, GroundItem>();
  private readonly becomingPublic: GroundItem[] = [];
  private readonly despawning: GroundItem[] = [];

  get size(): number {
    return this.items.size;
  }

  get(id: string): GroundItem | undefined {
    return this.items.get(id);
  }

  values(): IterableIterator<GroundItem> {
    return this.items.values();
  }

  add(item: GroundItem): void {
    this.items.set(item.id, item);
    if (item.ownerId !== undefined && !item.keptForOwner) this.becomingPublic.push(item);
    this.despawning.push(item);
  }

  delete(id: string): void {
    this.items.delete(id);
  }

  /** Reports items that turn public at `tick`, then removes and reports the ones that expire. */
  advance(tick: number, onPublic: (item: GroundItem) => void, onDespawn: (item: GroundItem) => void): void {
    drain(
      this.becomingPublic,
      (item) => item.droppedTick + OWNER_ONLY_TICKS <= tick,
      (item) => {
        if (this.items.get(item.id) === item) onPublic(item);
      },
    );
    drain(
      this.despawning,
      (item) => item.droppedTick + DESPAWN_TICKS <= tick,
      (item) => {
        if (this.items.get(item.id) !== item) return;
        this.items.delete(item.id);
        onDespawn(item);
      },
    );
  }
}

function drain(
  queue: GroundItem[],
  isDue: (item: GroundItem) => boolean,
  visit: (item: GroundItem) => void,
): void {
  let due = 0;
  while (due < queue.length && isDue(queue[due]!)) visit(queue[due++]!);
  queue.splice(0, due);
}
