// Melee and ranged combat: RuneScape's accuracy and max-hit formulas, combat XP and attack speed.
import type { Equipment } from "./character-state.js";
import type { CombatLevels } from "./combat-level.js";
import { type Random, randomInt } from "./random.js";
import {
  type AmmunitionDef,
  type CombatBonuses,
  EQUIP_SLOTS,
  type ItemDef,
  type NpcDef,
  type PrayerDef,
  type SkillName,
  TICKS_PER_MINUTE,
} from "./types.js";

export type CombatType = "melee" | "ranged";

export const MELEE_STYLES = ["accurate", "aggressive", "defensive", "controlled"] as const;
export const RANGED_STYLES = ["accurate", "rapid", "longrange"] as const;
/**
 * One style type for both combat types, so a player keeps one setting across weapon swaps.
 * "accurate" exists in both; a style that does not fit the wielded weapon's combat type
 * counts as "accurate" (see `styleFor`).
 */
export type CombatStyle = (typeof MELEE_STYLES)[number] | (typeof RANGED_STYLES)[number];
/** Every style a player may choose, melee and ranged. */
export const COMBAT_STYLES = [
  ...MELEE_STYLES,
  "rapid",
  "longrange",
] as const satisfies readonly CombatStyle[];
/** Every player's style until it chooses another. */
export const DEFAULT_STYLE: CombatStyle = "accurate";

export function isCombatStyle(value: unknown): value is CombatStyle {
  return (COMBAT_STYLES as readonly unknown[]).includes(value);
}

export const UNARMED_ATTACK_SPEED = 4;
/** RuneScape restores one hitpoint a minute, to players and monsters alike. */
export const HEALTH_REGEN_TICKS = TICKS_PER_MINUTE;
const PLAYER_LEVEL_BONUS = 8;
const NPC_LEVEL_BONUS = 9;
const BONUS_OFFSET = 64;

/** The invisible levels each style adds. Ranged "accurate" raises ranged, "rapid" attacks a tick sooner. */
const STYLE_BONUSES: Record<
  CombatStyle,
  { attack: number; strength: number; defence: number; ranged: number }
> = {
  accurate: { attack: 3, strength: 0, defence: 0, ranged: 3 },
  aggressive: { attack: 0, strength: 3, defence: 0, ranged: 0 },
  defensive: { attack: 0, strength: 0, defence: 3, ranged: 0 },
  controlled: { attack: 1, strength: 1, defence: 1, ranged: 0 },
  rapid: { attack: 0, strength: 0, defence: 0, ranged: 0 },
  longrange: { attack: 0, strength: 0, defence: 3, ranged: 0 },
};

/** What one side of a fight brings to a swing; the same shape for players and NPCs. */
export interface Combatant {
  combatType: CombatType;
  attackRoll: number;
  defenceRoll: number;
  maxHit: number;
  /** Ticks between attacks. */
  attackSpeed: number;
}

export function styleFor(style: CombatStyle, combatType: CombatType): CombatStyle {
  const styles: readonly CombatStyle[] = combatType === "melee" ? MELEE_STYLES : RANGED_STYLES;
  return styles.includes(style) ? style : "accurate";
}

/**
 * A player's effective level. The epsilon keeps products such as 20 * 1.15 (22.999999999999996
 * in binary floating point) from flooring one level short.
 */
export function effectiveLevel(level: number, styleBonus = 0, prayerMultiplier = 1): number {
  return Math.floor(level * prayerMultiplier + 1e-9) + styleBonus + PLAYER_LEVEL_BONUS;
}

export function npcEffectiveLevel(level: number): number {
  return level + NPC_LEVEL_BONUS;
}

export function attackRoll(effectiveAttack: number, attackBonus: number): number {
  return effectiveAttack * (attackBonus + BONUS_OFFSET);
}

/** The same formula as the attack roll, on the defender's side. */
export const defenceRoll: (effectiveDefence: number, defenceBonus: number) => number = attackRoll;

export function hitChance(attackRoll: number, defenceRoll: number): number {
  return attackRoll > defenceRoll
    ? 1 - (defenceRoll + 2) / (2 * (attackRoll + 1))
    : attackRoll / (2 * (defenceRoll + 1));
}

/**
 * REFERENCE's formula, never below 0: a strength bonus under -64 would make it negative, and a hit of
 * 0..-2 would give the defender health back.
 */
export function maxHit(effectiveStrength: number, strengthBonus: number): number {
  return Math.max(0, Math.floor(0.5 + (effectiveStrength * (strengthBonus + BONUS_OFFSET)) / 640));
}

/** Ranged uses the melee formula with the effective ranged level and the ranged strength bonus. */
export function rangedMaxHit(effectiveRanged: number, rangedStrength: number): number {
  return maxHit(effectiveRanged, rangedStrength);
}

/** Sum of the bonuses of everything worn; ids missing from `items` add nothing. */
export function equipmentBonuses(equipment: Equipment, items: ReadonlyMap<string, ItemDef>): CombatBonuses {
  const total: CombatBonuses = {
    attack: 0,
    strength: 0,
    defence: 0,
    ranged: 0,
    rangedStrength: 0,
    prayer: 0,
  };
  for (const slot of EQUIP_SLOTS) {
    const itemId = equipment[slot];
    const bonuses = itemId === undefined ? undefined : items.get(itemId)?.bonuses;
    for (const [stat, value] of Object.entries(bonuses ?? {})) total[stat as keyof CombatBonuses] += value;
  }
  return total;
}

export function attackSpeed(weapon: ItemDef | undefined, style: CombatStyle): number {
  const speed = weapon?.attackSpeed ?? UNARMED_ATTACK_SPEED;
  return style === "rapid" ? Math.max(1, speed - 1) : speed;
}

type BoostedStat = "attack" | "strength" | "defence" | "ranged";

/** Prayers of one kind do not stack: the strongest active one counts. */
function prayerMultiplier(prayers: readonly PrayerDef[], stat: BoostedStat): number {
  return Math.max(1, ...prayers.map((prayer) => prayer[stat] ?? 1));
}

/** The worn ammunition when it fits the wielded weapon (ammunition.json lists the bows of each arrow). */
export function fittingAmmunition(
  equipment: Equipment,
  ammunition: ReadonlyMap<string, AmmunitionDef>,
): AmmunitionDef | undefined {
  const ammo = equipment.ammo === undefined ? undefined : ammunition.get(equipment.ammo);
  return ammo && equipment.weapon !== undefined && ammo.weapons.includes(equipment.weapon) ? ammo : undefined;
}

/**
 * A player's combat numbers from levels, worn items, style and active prayers. An arrow's ranged
 * strength is ammunition.json's, and counts only when it fits the bow: `ammo` (see fittingAmmunition).
 */
export function playerCombatant(
  levels: CombatLevels,
  equipment: Equipment,
  style: CombatStyle,
  items: ReadonlyMap<string, ItemDef>,
  prayers: readonly PrayerDef[] = [],
  ammo?: AmmunitionDef,
): Combatant {
  const weapon = equipment.weapon === undefined ? undefined : items.get(equipment.weapon);
  const combatType = weapon?.combatType ?? "melee";
  const usedStyle = styleFor(style, combatType);
  const styleBonus = STYLE_BONUSES[usedStyle];
  const bonuses = equipmentBonuses(equipment, items);
  const level = (stat: BoostedStat) =>
    effectiveLevel(levels[stat], styleBonus[stat], prayerMultiplier(prayers, stat));
  const defence = defenceRoll(level("defence"), bonuses.defence);
  const speed = attackSpeed(weapon, usedStyle);
  if (combatType === "ranged") {
    const effectiveRanged = level("ranged");
    const wornArrow = equipment.ammo === undefined ? undefined : items.get(equipment.ammo);
    const rangedStrength =
      bonuses.rangedStrength - (wornArrow?.bonuses?.rangedStrength ?? 0) + (ammo?.rangedStrength ?? 0);
    return {
      combatType,
      attackRoll: attackRoll(effectiveRanged, bonuses.ranged),
      defenceRoll: defence,
      maxHit: rangedMaxHit(effectiveRanged, rangedStrength),
      attackSpeed: speed,
    };
  }
  return {
    combatType,
    attackRoll: attackRoll(level("attack"), bonuses.attack),
    defenceRoll: defence,
    maxHit: maxHit(level("strength"), bonuses.strength),
    attackSpeed: speed,
  };
}

/** NPCs fight in melee: their stats carry no ranged bonus or ammunition. */
export function npcCombatant(npc: NpcDef): Combatant {
  const stats = npc.combat;
  if (stats === undefined) throw new RangeError(`NPC ${npc.id} has no combat stats`);
  return {
    combatType: "melee",
    attackRoll: attackRoll(npcEffectiveLevel(stats.attack), stats.attackBonus),
    defenceRoll: defenceRoll(npcEffectiveLevel(stats.defence), stats.defenceBonus),
    maxHit: maxHit(npcEffectiveLevel(stats.strength), stats.strengthBonus),
    attackSpeed: stats.attackSpeed,
  };
}

/**
 * One swing: a hit deals 0..maxHit, uniformly. The damage is not capped to the defender's
 * remaining health; the caller, which holds the health, does that.
 */
export function resolveAttack(
  attacker: Combatant,
  defender: Combatant,
  random: Random,
): { hit: boolean; damage: number } {
  const hit = random() < hitChance(attacker.attackRoll, defender.defenceRoll);
  return { hit, damage: hit ? randomInt(random, 0, attacker.maxHit) : 0 };
}

const XP_PER_DAMAGE = 4;
const SHARED_XP_PER_DAMAGE = 1.33;

/** XP per damage dealt for each skill a style trains, constitution aside. */
const TRAINED_XP: Record<CombatType, Partial<Record<CombatStyle, Partial<Record<SkillName, number>>>>> = {
  melee: {
    accurate: { attack: XP_PER_DAMAGE },
    aggressive: { strength: XP_PER_DAMAGE },
    defensive: { defence: XP_PER_DAMAGE },
    controlled: {
      attack: SHARED_XP_PER_DAMAGE,
      strength: SHARED_XP_PER_DAMAGE,
      defence: SHARED_XP_PER_DAMAGE,
    },
  },
  ranged: {
    accurate: { ranged: XP_PER_DAMAGE },
    rapid: { ranged: XP_PER_DAMAGE },
    longrange: { ranged: XP_PER_DAMAGE / 2, defence: XP_PER_DAMAGE / 2 },
  },
};

/** XP earned by dealing `damage`, rounded to one decimal; nothing for a zero hit. */
export function combatXp(
  style: CombatStyle,
  damage: number,
  combatType: CombatType,
): Partial<Record<SkillName, number>> {
  if (damage <= 0) return {};
  const perDamage = {
    ...TRAINED_XP[combatType][styleFor(style, combatType)],
    constitution: SHARED_XP_PER_DAMAGE,
  };
  const xp: Partial<Record<SkillName, number>> = {};
  for (const [skill, rate] of Object.entries(perDamage))
    xp[skill as SkillName] = Math.round(rate * damage * 10) / 10;
  return xp;
}
