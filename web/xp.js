// RuneScape's XP table, as the server levels skills with it: how much XP each level needs, and how far a
// skill is from its next one. The page cannot import the server's TypeScript, so the formula is repeated.

export const MAX_LEVEL = 99;

/** XP needed for each level, index = level (index 0 unused). */
const XP_TABLE = (() => {
  const table = [0, 0];
  let points = 0;
  for (let level = 1; level < MAX_LEVEL; level++) {
    points += Math.floor(level + 300 * 2 ** (level / 7));
    table.push(Math.floor(points / 4));
  }
  return table;
})();

export function xpForLevel(level) {
  return XP_TABLE[level];
}

/**
 * Where a skill stands on the way to its next level: the XP still needed (whole XP, rounded up: 78.5 to
 * go is 79) and the share of the way done, 0..1. Undefined at the highest level.
 */
export function towardsNextLevel({ level, xp }) {
  if (level >= MAX_LEVEL) return undefined;
  const from = XP_TABLE[level];
  const to = XP_TABLE[level + 1];
  return {
    next: level + 1,
    remaining: Math.max(0, Math.ceil(to - xp)),
    done: Math.min(1, Math.max(0, (xp - from) / (to - from))),
  };
}
