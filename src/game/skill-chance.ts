/**
 * RuneScape's skilling success curve: the chance out of 256 at `level`, interpolated between
 * `low` (level 1) and `high` (level 99). Callers clamp it; it may exceed 256 for generous curves.
 */
export function chanceOutOf256(low: number, high: number, level: number): number {
  return 1 + Math.floor((low * (99 - level)) / 98 + (high * (level - 1)) / 98 + 0.5);
}
