// A small item catalogue for the rule tests, independent of the real manifests.
import fc from "fast-check";
import type { InventoryEntry, SkillState } from "../../src/game/character-state.js";
import type { CombatLevels } from "../../src/game/combat-level.js";
import {
  INVENTORY_SLOTS,
  type ItemDef,
  type ItemQuantity,
  type NpcDef,
  SKILLS,
  type SkillName,
} from "../../src/game/types.js";
import { xpForLevel } from "../../src/game/xp.js";

function item(def: Partial<ItemDef> & Pick<ItemDef, "id" | "type" | "value">): ItemDef {
  return { name: def.id, stackable: false, tradeable: true, ...def };
}

export const ITEMS: ReadonlyMap<string, ItemDef> = new Map(
  [
    item({ id: "coins", type: "misc", value: 1, stackable: true }),
    item({ id: "feathers", type: "resource", value: 2, stackable: true }),
    item({ id: "logs", type: "resource", value: 4 }),
    item({ id: "raw_shrimp", type: "food", value: 5 }),
    item({ id: "shrimp", type: "food", value: 8, heals: 3 }),
    item({ id: "bronze_axe", type: "tool", value: 16, equipSlot: "weapon" }),
    item({ id: "quest_key", type: "misc", value: 500, tradeable: false }),
    item({
      id: "iron_sword",
      type: "weapon",
      value: 91,
      equipSlot: "weapon",
      attackSpeed: 4,
      combatType: "melee",
      bonuses: { attack: 10, strength: 7 },
    }),
    item({ id: "wooden_shield", type: "armor", value: 20, equipSlot: "shield", bonuses: { defence: 5 } }),
    item({
      id: "leather_body",
      type: "armor",
      value: 21,
      equipSlot: "body",
      bonuses: { defence: 8, ranged: -2 },
    }),
    item({
      id: "shortbow",
      type: "weapon",
      value: 50,
      equipSlot: "weapon",
      attackSpeed: 4,
      combatType: "ranged",
      bonuses: { ranged: 8 },
    }),
    item({
      id: "bronze_arrow",
      type: "ammunition",
      value: 1,
      stackable: true,
      equipSlot: "ammo",
      bonuses: { rangedStrength: 7 },
    }),
  ].map((def) => [def.id, def]),
);

/** Every skill at `level`, with `overrides` applied. */
export function skillsAt(
  level: number,
  overrides: Partial<Record<SkillName, number>> = {},
): Record<SkillName, SkillState> {
  const entries = SKILLS.map((skill) => {
    const skillLevel = overrides[skill] ?? level;
    return [skill, { level: skillLevel, xp: xpForLevel(skillLevel) }] as const;
  });
  return Object.fromEntries(entries) as Record<SkillName, SkillState>;
}

/** A Random that replays `values` in order, for tests that pin each roll. */
export function sequence(...values: number[]): () => number {
  let next = 0;
  return () => {
    const value = values[next++];
    if (value === undefined) throw new Error("the test's random sequence ran out");
    return value;
  };
}

/** Any valid inventory of fixture items: distinct slots, one stack per stackable item, others one per slot. */
export function inventoryArbitrary(maxQuantity = 1_000): fc.Arbitrary<InventoryEntry[]> {
  const entry = fc.record({
    slot: fc.integer({ min: 0, max: INVENTORY_SLOTS - 1 }),
    itemId: fc.constantFrom(...ITEMS.keys()),
    quantity: fc.integer({ min: 1, max: maxQuantity }),
  });
  return fc.uniqueArray(entry, { selector: (e) => e.slot, maxLength: INVENTORY_SLOTS }).map((entries) => {
    const stacked = new Set<string>();
    return entries.flatMap((e) => {
      if (!ITEMS.get(e.itemId)!.stackable) return [{ ...e, quantity: 1 }];
      if (stacked.has(e.itemId)) return [];
      stacked.add(e.itemId);
      return [e];
    });
  });
}

/** Total quantity of each item id across all the given lists. */
export function totals(...lists: readonly (readonly ItemQuantity[])[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const list of lists)
    for (const { itemId, quantity } of list) sums.set(itemId, (sums.get(itemId) ?? 0) + quantity);
  return sums;
}

/** A new character's combat levels (hitpoints start at 10). */
export const FRESH_LEVELS: CombatLevels = {
  attack: 1,
  strength: 1,
  defence: 1,
  constitution: 10,
  ranged: 1,
  magic: 1,
  prayer: 1,
};

/** A weak melee monster with nothing to drop; suites add drops or aggression as they need. */
export const GOBLIN: NpcDef = {
  id: "goblin",
  name: "Goblin",
  role: "monster",
  combatLevel: 2,
  combat: {
    attack: 1,
    strength: 1,
    defence: 1,
    constitution: 5,
    ranged: 1,
    attackBonus: 0,
    strengthBonus: 0,
    defenceBonus: 0,
    attackSpeed: 4,
  },
  aggressive: false,
  aggroRange: 0,
  wanderRadius: 3,
  leashRange: 8,
  respawnTicks: 50,
  drops: [],
};
