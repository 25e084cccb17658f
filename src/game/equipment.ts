// Wearing and removing items: pure functions over an inventory and the worn equipment.
import type { Equipment, InventoryEntry } from "./character-state.js";
import { type GameError, gameError } from "./errors.js";
import { addItem, entryAt, removeFromSlot } from "./inventory.js";
import type { EquipSlot, ItemDef, SkillName } from "./types.js";

export interface Outfit {
  inventory: InventoryEntry[];
  equipment: Equipment;
}

/** The first skill whose level is below the item's requirement, if any. */
export function unmetRequirement(
  item: ItemDef,
  levels: Readonly<Record<SkillName, number>>,
): SkillName | undefined {
  for (const [skill, level] of Object.entries(item.requirements ?? {})) {
    if (levels[skill as SkillName] < level) return skill as SkillName;
  }
  return undefined;
}

/**
 * Wears one of the item in `slot` (equipment holds single items). Whatever was worn in that
 * equipment slot goes back to the inventory (first free slot, or its stack).
 */
export function equip(
  inventory: readonly InventoryEntry[],
  equipment: Equipment,
  slot: number,
  items: ReadonlyMap<string, ItemDef>,
  levels: Readonly<Record<SkillName, number>>,
): Outfit | GameError {
  const entry = entryAt(inventory, slot);
  if (!entry) return gameError("invalid_slot", `Inventory slot ${slot} is empty.`);
  const item = items.get(entry.itemId);
  if (!item?.equipSlot) return gameError("invalid_target", `You cannot wear ${item?.name ?? entry.itemId}.`);
  const missing = unmetRequirement(item, levels);
  if (missing) {
    return gameError(
      "level_too_low",
      `You need ${missing} level ${item.requirements?.[missing]} to wear ${item.name}.`,
    );
  }
  const worn = equipment[item.equipSlot];
  let nextInventory = removeFromSlot(inventory, slot, 1).inventory;
  if (worn !== undefined) {
    const wornItem = items.get(worn) ?? { id: worn, stackable: false };
    const stored = addItem(nextInventory, wornItem, 1);
    if (stored.added === 0) return gameError("inventory_full", `There is no room to take off your ${worn}.`);
    nextInventory = stored.inventory;
  }
  return { inventory: nextInventory, equipment: { ...equipment, [item.equipSlot]: item.id } };
}

/** Takes off what is worn in `slot` and puts it in the inventory. */
export function unequip(
  inventory: readonly InventoryEntry[],
  equipment: Equipment,
  slot: EquipSlot,
  items: ReadonlyMap<string, ItemDef>,
): Outfit | GameError {
  const worn = equipment[slot];
  const item = worn === undefined ? undefined : items.get(worn);
  if (!item) return gameError("invalid_slot", `Nothing is worn in the ${slot} slot.`);
  const added = addItem(inventory, item, 1);
  if (added.added === 0) return gameError("inventory_full", "Your inventory is full.");
  const { [slot]: _removed, ...rest } = equipment;
  return { inventory: added.inventory, equipment: rest };
}
