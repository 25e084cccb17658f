import type { SkillState } from "./character-state.js";
import type { NpcCombatStats, SkillName } from "./types.js";

export const MIN_COMBAT_LEVEL = 3;
export const MAX_COMBAT_LEVEL = 126;

export type CombatSkill = "attack" | "strength" | "defence" | "constitution" | "ranged" | "magic" | "prayer";
export type CombatLevels = Readonly<Record<CombatSkill, number>>;

/** The level of every skill, for the rules that read levels only. */
export function skillLevels(skills: Readonly<Record<SkillName, SkillState>>): Record<SkillName, number> {
  const entries = Object.entries(skills).map(([skill, state]) => [skill, state.level]);
  return Object.fromEntries(entries) as Record<SkillName, number>;
}

/** RuneScape's formula, unclamped; constitution is its hitpoints skill. */
function combatFormula(levels: CombatLevels): number {
  const base = levels.defence + levels.constitution + Math.floor(levels.prayer / 2);
  const best = Math.max(
    levels.attack + levels.strength,
    Math.floor(1.5 * levels.ranged),
    Math.floor(1.5 * levels.magic),
  );
  return Math.floor(0.25 * base + 0.325 * best);
}

/** A player's combat level: RuneScape's formula, between 3 and 126. */
export function combatLevel(levels: CombatLevels): number {
  return Math.min(MAX_COMBAT_LEVEL, Math.max(MIN_COMBAT_LEVEL, combatFormula(levels)));
}

/**
 * The combat level a monster's stats make: the players' formula, with no prayer or magic and no
 * floor of 3 (a chicken is level 1).
 */
export function npcCombatLevel(stats: NpcCombatStats): number {
  return combatFormula({ ...stats, magic: 1, prayer: 0 });
}

export function totalLevel(levels: Readonly<Record<SkillName, number>>): number {
  return Object.values(levels).reduce((sum, level) => sum + level, 0);
}
