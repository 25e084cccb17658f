// What a player keeps and what falls to the ground when they die.
import type { Equipment, InventoryEntry } from "./character-state.js";
import { DESPAWN_TICKS, OWNER_ONLY_TICKS } from "./ground-items.js";
import {
  EQUIP_SLOTS,
  type EquipSlot,
  type ItemDef,
  type ItemQuantity,
  TICKS_PER_MINUTE,
  type Tile,
} from "./types.js";

export const ITEMS_KEPT_ON_DEATH = 3;

/**
 * What the server tells a player who died: what became of what it carried, and where what it lost lies
 * and for how long, which a respawn far away would otherwise leave it to guess.
 */
export function deathNotice(dropped: number, where: Tile, areaName: string): string {
  if (dropped === 0) return "Oh dear, you are dead! You kept everything you carried.";
  const minutes = (ticks: number) => {
    const count = ticks / TICKS_PER_MINUTE;
    return count === 1 ? "a minute" : `${count} minutes`;
  };
  return (
    `Oh dear, you are dead! What you lost lies where you fell, at (${where.x}, ${where.z}) in ${areaName}: ` +
    `only you see it for ${minutes(OWNER_ONLY_TICKS)}, everyone after that, and it is gone after ${minutes(DESPAWN_TICKS)}.`
  );
}

export interface DeathSplit {
  kept: { inventory: InventoryEntry[]; equipment: Equipment };
  dropped: ItemQuantity[];
}

type Source = { kind: "equipment"; slot: EquipSlot } | { kind: "inventory"; entry: InventoryEntry };

/**
 * In a safe zone the player keeps their `keepCount` most valuable single units (a stack of 100
 * coins offers 100 one-coin units) where they were, and the rest drops; elsewhere everything drops.
 * Equal values favour worn items, then lower slots, so the same state always splits the same way.
 * Ids missing from `items` are worth 0.
 */
export function splitOnDeath(
  inventory: readonly InventoryEntry[],
  equipment: Equipment,
  items: ReadonlyMap<string, ItemDef>,
  keepCount: number = ITEMS_KEPT_ON_DEATH,
  safeZone: boolean,
): DeathSplit {
  const sources: Source[] = [
    ...EQUIP_SLOTS.filter((slot) => equipment[slot] !== undefined).map((slot) => ({
      kind: "equipment" as const,
      slot,
    })),
    ...[...inventory].sort((a, b) => a.slot - b.slot).map((entry) => ({ kind: "inventory" as const, entry })),
  ];
  const itemIdOf = (source: Source) =>
    source.kind === "equipment" ? equipment[source.slot]! : source.entry.itemId;
  const quantityOf = (source: Source) => (source.kind === "equipment" ? 1 : source.entry.quantity);

  const keepable = safeZone ? keepCount : 0;
  const units = sources.flatMap((source) =>
    Array.from({ length: Math.min(quantityOf(source), keepable) }, () => ({
      source,
      value: items.get(itemIdOf(source))?.value ?? 0,
    })),
  );
  // Array.prototype.sort is stable, so ties keep the source order above.
  const keptUnits = units.sort((a, b) => b.value - a.value).slice(0, keepable);
  const keptCount = new Map<Source, number>();
  for (const { source } of keptUnits) keptCount.set(source, (keptCount.get(source) ?? 0) + 1);

  const split: DeathSplit = { kept: { inventory: [], equipment: {} }, dropped: [] };
  for (const source of sources) {
    const itemId = itemIdOf(source);
    const kept = keptCount.get(source) ?? 0;
    const dropped = quantityOf(source) - kept;
    if (kept > 0 && source.kind === "equipment") split.kept.equipment[source.slot] = itemId;
    if (kept > 0 && source.kind === "inventory")
      split.kept.inventory.push({ ...source.entry, quantity: kept });
    if (dropped > 0) split.dropped.push({ itemId, quantity: dropped });
  }
  return split;
}
