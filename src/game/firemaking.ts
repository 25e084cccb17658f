// Lighting logs with a tinderbox.
import type { Random } from "./random.js";
import { chanceOutOf256 } from "./skill-chance.js";
import type { FiremakingRecipe } from "./types.js";

/**
 * Every log follows the same curve measured from its own level requirement: about 1 in 4 at the
 * requirement, certain 42 levels above it. A failed attempt is simply retried next tick.
 */
const LOW = 64;
const HIGH = 512;

export function lightChance(level: number, recipe: FiremakingRecipe): number {
  const levelsAboveRequirement = level - recipe.levelRequired;
  return Math.min(256, chanceOutOf256(LOW, HIGH, 1 + levelsAboveRequirement)) / 256;
}

export type LightResult = { lit: false } | { lit: true; xp: number; burnTicks: number };

export function attemptLight(level: number, recipe: FiremakingRecipe, random: Random): LightResult {
  if (random() >= lightChance(level, recipe)) return { lit: false };
  return { lit: true, xp: recipe.xp, burnTicks: recipe.burnTicks };
}
