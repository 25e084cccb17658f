// The odds of a fight, worked out with the game's own combat formulas (src/game/combat.ts), as a player
// who knows the rules would reckon them: how fast each side deals damage, what a kill is worth in XP
// and food, and which style to train so that it hits harder soon.

import {
  type Combatant,
  type CombatStyle,
  type CombatType,
  combatXp,
  fittingAmmunition,
  hitChance,
  MELEE_STYLES,
  npcCombatant,
  playerCombatant,
  RANGED_STYLES,
} from "../../game/combat.js";
import { combatLevel, skillLevels } from "../../game/combat-level.js";
import { burnChance } from "../../game/cooking.js";
import type { GameData, NpcDef, SkillName } from "../../game/types.js";
import { levelForXp, MAX_LEVEL, xpForLevel } from "../../game/xp.js";
import type { AgentView } from "../brain.js";

/** The skill each style trains (ranged longrange shares its XP with defence: ranged counts here). */
const TRAINS: Record<CombatStyle, SkillName> = {
  accurate: "attack",
  aggressive: "strength",
  defensive: "defence",
  controlled: "attack",
  rapid: "ranged",
  longrange: "ranged",
};

/** The styles the agent picks among: controlled splits its XP and longrange its damage, so neither is. */
const TRAINING_STYLES: Record<CombatType, readonly CombatStyle[]> = {
  melee: MELEE_STYLES.filter((style) => style !== "controlled"),
  ranged: RANGED_STYLES.filter((style) => style !== "longrange"),
};

/** How far ahead (in ticks) a style's training is weighed: 20 minutes of play. */
const STYLE_HORIZON_TICKS = 2000;

/** The levels a style's look-ahead searches for the next one that makes the agent hit harder. */
const LOOKAHEAD_LEVELS = 10;

/** The level of every skill, from the XP its player:sync gave. */
export function levelsOf(view: AgentView): Record<SkillName, number> {
  const skills = Object.fromEntries(
    Object.entries(view.skills).map(([skill, { xp }]) => [skill, { xp, level: levelForXp(xp) }]),
  ) as Parameters<typeof skillLevels>[0];
  return skillLevels(skills);
}

/** The agent's combat level, as other players see it. */
export function ownCombatLevel(view: AgentView): number {
  return combatLevel(levelsOf(view));
}

/** Damage per tick one side deals the other, on average. */
export function damagePerTick(attacker: Combatant, defender: Combatant): number {
  return (hitChance(attacker.attackRoll, defender.defenceRoll) * attacker.maxHit) / 2 / attacker.attackSpeed;
}

/** The agent in a fight: its levels (or others, to look ahead), what it wears, and a style. */
export function agentCombatant(
  view: AgentView,
  data: GameData,
  style: CombatStyle,
  levels: Record<SkillName, number> = levelsOf(view),
  equipment = view.equipment ?? {},
): Combatant {
  return playerCombatant(
    levels,
    equipment,
    style,
    data.items,
    [],
    fittingAmmunition(equipment, data.ammunition),
  );
}

function combatTypeOf(view: AgentView, data: GameData): CombatType {
  const weapon = view.equipment?.weapon;
  return (weapon === undefined ? undefined : data.items.get(weapon)?.combatType) ?? "melee";
}

/** What one kill of a monster is worth, and costs, fought in `style`. */
export interface FightOdds {
  /** Ticks of fighting a kill takes, on average. */
  killTicks: number;
  /** Health it loses meanwhile, on average. */
  damageTaken: number;
  /** The monster's hardest hit. */
  maxHit: number;
  /** Combat XP a kill gives. */
  xp: number;
  /** Health its drops give back once cooked (burns counted). */
  food: number;
}

export function fightOdds(view: AgentView, data: GameData, npc: NpcDef, style: CombatStyle): FightOdds {
  const agent = agentCombatant(view, data, style);
  const monster = npcCombatant(npc);
  const health = npc.combat?.constitution ?? 1;
  const dealt = damagePerTick(agent, monster);
  const killTicks = dealt > 0 ? health / dealt : Number.POSITIVE_INFINITY;
  const perDamage = Object.values(combatXp(style, 1, agent.combatType)).reduce((sum, xp) => sum + xp, 0);
  return {
    killTicks,
    damageTaken: damagePerTick(monster, agent) * killTicks,
    maxHit: monster.maxHit,
    xp: perDamage * health,
    food: dropFood(view, data, npc),
  };
}

/** The health a monster's drops give back on average, cooked on a range at the agent's cooking level. */
function dropFood(view: AgentView, data: GameData, npc: NpcDef): number {
  const cooking = levelForXp(view.skills.cooking?.xp ?? 0);
  let food = 0;
  for (const drop of npc.drops) {
    const count = (drop.chance * (drop.min + drop.max)) / 2;
    const recipe = data.cooking.get(drop.itemId);
    if (recipe && recipe.levelRequired <= cooking) {
      const heals = data.items.get(recipe.cookedItemId)?.heals ?? 0;
      food += count * heals * (1 - burnChance(recipe, cooking, "range"));
    } else food += count * (data.items.get(drop.itemId)?.heals ?? 0);
  }
  return food;
}

/** Ticks of getting food (fishing, cooking, walking) per hitpoint it gives back: a rough player's guess. */
const TICKS_PER_HITPOINT = 6;

/**
 * XP per tick a monster gives over the whole round: walking there, the fight, and getting back the
 * health the fight costs beyond what the monster's drops give.
 */
export function xpRate(odds: FightOdds, walkTicks: number): number {
  const foodTicks = Math.max(0, odds.damageTaken - odds.food) * TICKS_PER_HITPOINT;
  return odds.xp / (walkTicks + odds.killTicks + foodTicks);
}

/**
 * A fight it expects to win from `health` with `food` hitpoints of food carried: what the fight costs
 * (`luck` times its average: more than 1 reckons with bad luck) still leaves it more than the monster's
 * hardest hit.
 */
export function canWin(odds: FightOdds, health: number, food: number, luck = 1): boolean {
  return Number.isFinite(odds.killTicks) && odds.damageTaken * luck + odds.maxHit < health + food;
}

/**
 * The style to fight `npc` in: of the styles that fit its weapon, the one whose skill, trained up to
 * its next level that makes the agent hit harder, gives the most damage over the next 20 minutes (the
 * damage while training, then at the better level). Undefined when none does better than another.
 */
export function bestStyle(view: AgentView, data: GameData, npc: NpcDef): CombatStyle | undefined {
  const type = combatTypeOf(view, data);
  const styles = TRAINING_STYLES[type];
  const monster = npcCombatant(npc);
  const levels = levelsOf(view);
  const rate = (style: CombatStyle, at: Record<SkillName, number>) =>
    damagePerTick(agentCombatant(view, data, style, at), monster);
  const bestRate = (at: Record<SkillName, number>) => Math.max(...styles.map((style) => rate(style, at)));
  let best: CombatStyle | undefined;
  let bestDamage = 0;
  let tied = true;
  for (const style of styles) {
    const skill = TRAINS[style];
    const now = rate(style, levels);
    const perDamage = combatXp(style, 1, type)[skill] ?? 0;
    let damage = now * STYLE_HORIZON_TICKS;
    const xp = view.skills[skill]?.xp ?? 0;
    for (
      let level = levels[skill] + 1;
      level <= Math.min(MAX_LEVEL, levels[skill] + LOOKAHEAD_LEVELS);
      level++
    ) {
      const after = bestRate({ ...levels, [skill]: level });
      if (after <= bestRate(levels) || now <= 0 || perDamage <= 0) continue;
      const trainTicks = (xpForLevel(level) - xp) / (perDamage * now);
      if (trainTicks < STYLE_HORIZON_TICKS)
        damage = Math.max(damage, now * trainTicks + after * (STYLE_HORIZON_TICKS - trainTicks));
      break;
    }
    if (best !== undefined && Math.abs(damage - bestDamage) > 1e-9) tied = false;
    if (best === undefined || damage > bestDamage + 1e-9) [best, bestDamage] = [style, damage];
  }
  return tied ? undefined : best;
}
