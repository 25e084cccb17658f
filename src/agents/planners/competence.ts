// What a sensible player does around its fights, as plain rules over the agent's view: wield and wear
// the best it owns, fight what it can beat, keep food by cooking its catch (on a fire it lights, if
// need be) or withdrawing some from the bank.
import { canReachBank } from "../../game/bank.js";
import { combatLevel, skillLevels } from "../../game/combat-level.js";
import { unmetRequirement } from "../../game/equipment.js";
import { chebyshev } from "../../game/tile.js";
import type { GameData, ItemDef, SkillName } from "../../game/types.js";
import { levelForXp } from "../../game/xp.js";
import type { AgentView, Step, WorldKnowledge } from "../brain.js";

/** How much food it takes from the bank at once. */
export const FOOD_TO_WITHDRAW = 10;

function levelsOf(view: AgentView): Record<SkillName, number> {
  const skills = Object.fromEntries(
    Object.entries(view.skills).map(([skill, { xp }]) => [skill, { xp, level: levelForXp(xp) }]),
  ) as Parameters<typeof skillLevels>[0];
  return skillLevels(skills);
}

/** The agent's combat level, as other players see it. */
export function ownCombatLevel(view: AgentView): number {
  return combatLevel(levelsOf(view));
}

/** The monsters it fights: those that leave it alone until attacked, up to its own level less 3 (5 at least). */
export function isWinnable(data: GameData, npcId: string, view: AgentView, floor: number): boolean {
  const def = data.npcs.get(npcId);
  if (def?.role !== "monster" || def.aggressive) return false;
  return def.combatLevel <= Math.max(floor, ownCombatLevel(view) - 3);
}

function meleeScore(item: ItemDef | undefined): number {
  const bonuses = item?.bonuses ?? {};
  return (bonuses.attack ?? 0) + (bonuses.strength ?? 0) + (bonuses.defence ?? 0);
}

/** Wields or wears the best melee gear it carries and may use, one piece a decision. */
export function gearStep(view: AgentView, data: GameData): Step | undefined {
  const levels = levelsOf(view);
  for (const entry of view.inventory) {
    const item = data.items.get(entry.itemId);
    if (!item?.equipSlot || item.equipSlot === "ammo" || item.combatType === "ranged") continue;
    if (unmetRequirement(item, levels)) continue;
    const wornId = view.equipment?.[item.equipSlot];
    if (meleeScore(item) > meleeScore(wornId === undefined ? undefined : data.items.get(wornId)))
      return { event: "inventory:use", data: { inventorySlot: entry.slot } };
  }
  return undefined;
}

export function hasFood(view: AgentView, data: GameData): boolean {
  return view.inventory.some((entry) => (data.items.get(entry.itemId)?.heals ?? 0) > 0);
}

/**
 * Out of food: cook raw food on a fire or range in view, or light a fire for it (outside towns), or take
 * food from the bank when a booth is in reach. Undefined when none of these can be done here.
 */
export function foodStep(view: AgentView, { data, map }: WorldKnowledge): Step | undefined {
  if (hasFood(view, data)) return undefined;
  const raw = view.inventory.find((entry) => data.cooking.has(entry.itemId));
  if (raw) {
    const station = view.entities.find((entity) => {
      const type = data.stations.get(entity.type)?.type;
      return (type === "fire" || type === "range") && chebyshev(entity.position, view.self.position) <= 10;
    });
    if (station) return { event: "player:action", data: { action: "cook", inventorySlot: raw.slot } };
    const logs = view.inventory.find((entry) => data.firemaking.has(entry.itemId));
    const tinderbox = view.inventory.some((entry) => entry.itemId === "tinderbox");
    const { x, z } = view.self.position;
    if (logs && tinderbox && !map.areaAt(x, z)?.safeZone)
      return { event: "player:action", data: { action: "light_fire", inventorySlot: logs.slot } };
  }
  const banked = view.bank?.find((row) => (data.items.get(row.itemId)?.heals ?? 0) > 0);
  const booths = data.areas.flatMap((area) => area.banks);
  if (banked && canReachBank(view.self.position, booths))
    return {
      event: "bank:withdraw",
      data: { itemId: banked.itemId, quantity: Math.min(FOOD_TO_WITHDRAW, banked.quantity) },
    };
  return undefined;
}
