import type { SkillState } from "./character-state.js";

export const MAX_LEVEL = 99;
export const XP_CAP = 200_000_000;

/** XP needed for each level, index = level (index 0 unused): RuneScape's published table. */
const XP_TABLE: readonly number[] = (() => {
  const table = [0, 0];
  let points = 0;
  for (let level = 1; level < MAX_LEVEL; level++) {
    points += Math.floor(level + 300 * 2 ** (level / 7));
    table.push(Math.floor(points / 4));
  }
  return table;
})();

export function xpForLevel(level: number): number {
  if (!Number.isInteger(level) || level < 1 || level > MAX_LEVEL)
    throw new RangeError(`level ${level} is not in 1..99`);
  return XP_TABLE[level]!;
}

export function levelForXp(xp: number): number {
  let low = 1;
  let high = MAX_LEVEL;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (XP_TABLE[mid]! <= xp) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * Adds XP (capped at 200 M) and reports the new state and how many levels were gained. XP is kept in
 * tenths, as every gain is: summing them as binary fractions would drift (41 × 1.3 + 11 × 2.7 would
 * come to 82.99999999999999, one hair short of level 2's 83).
 */
export function gainXp(skill: SkillState, amount: number): { skill: SkillState; levelsGained: number } {
  // What is no number (a bad game-data value, say) gains nothing rather than wipe the skill's XP.
  const gained = Number.isFinite(amount) ? Math.max(0, amount) : 0;
  const xp = Math.min(XP_CAP, Math.round((skill.xp + gained) * 10) / 10);
  const level = levelForXp(xp);
  return { skill: { level, xp }, levelsGained: level - skill.level };
}
