// Prayers: each boosts one combat stat while it is on, and drains prayer points (as many as the
// prayer level) at its own rate until they run out.
import type { CharacterState } from "./character-state.js";
import { type GameError, gameError } from "./errors.js";
import { type PrayerDef, TICKS_PER_MINUTE } from "./types.js";

/** With no prayer on for a minute, a point comes back (there are no altars to recharge them at). */
export const PRAYER_REGEN_TICKS = TICKS_PER_MINUTE;

const BOOSTED_STATS = ["attack", "strength", "defence", "ranged"] as const;

/** The character's prayer points now: stored ones, or as many as its prayer level when none are. */
export function prayerPoints(character: Pick<CharacterState, "prayerPoints" | "skills">): number {
  return character.prayerPoints ?? character.skills.prayer.level;
}

/** Why the prayer cannot be switched on, if anything stops it. */
export function prayerProblem(prayer: PrayerDef, level: number, points: number): GameError | undefined {
  if (level < prayer.level)
    return gameError("level_too_low", `You need prayer level ${prayer.level} to use ${prayer.name}.`);
  if (points <= 0)
    return gameError("no_prayer_points", "You have no prayer points left: they come back a point a minute.");
  return undefined;
}

/** The prayers on once `prayer` is switched on: it replaces any that boosts a stat it boosts. */
export function switchOn(active: readonly PrayerDef[], prayer: PrayerDef): PrayerDef[] {
  const boosts = (candidate: PrayerDef) => BOOSTED_STATS.filter((stat) => candidate[stat] !== undefined);
  const stats = boosts(prayer);
  const kept = active.filter(
    (other) => other.id !== prayer.id && !boosts(other).some((stat) => stats.includes(stat)),
  );
  return [...kept, prayer];
}

/**
 * One tick of drain: the active prayers' drains (points a minute) add up in `carried`, and each whole
 * point leaves. A worn prayer bonus makes each point last (60 + 2 x bonus) / 60 as long, as in
 * RuneScape. Counted in sixtieths of a drain, the arithmetic stays exact.
 */
export function drainOneTick(
  points: number,
  carried: number,
  active: readonly PrayerDef[],
  prayerBonus = 0,
): { points: number; carried: number } {
  const perPoint = TICKS_PER_MINUTE * (60 + 2 * Math.max(0, prayerBonus));
  let owed = carried;
  for (const prayer of active) owed += prayer.drain * 60;
  const spent = Math.floor(owed / perPoint);
  return { points: Math.max(0, points - spent), carried: owed - spent * perPoint };
}
