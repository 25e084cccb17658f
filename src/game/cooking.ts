// Cooking raw food on a fire or a range.
import type { Random } from "./random.js";
import type { CookingRecipe, StationDef } from "./types.js";

export type CookingStation = "fire" | "range";

/** Whether food cooks on a station of this kind (a fire or a range; undefined: none). */
export function cooksFood(station: StationDef | undefined): boolean {
  return station?.type === "fire" || station?.type === "range";
}

/** Burn chance at the recipe's level requirement; a range's steadier heat burns less. */
const BURN_CHANCE_AT_REQUIREMENT: Record<CookingStation, number> = { fire: 0.5, range: 0.4 };

/** Falls linearly from the station's base at the level requirement to 0 at the recipe's stop-burn level. */
export function burnChance(recipe: CookingRecipe, level: number, station: CookingStation): number {
  const span = recipe.stopBurnLevel - recipe.levelRequired;
  if (level >= recipe.stopBurnLevel || span <= 0) return 0;
  const remaining = Math.min(1, (recipe.stopBurnLevel - level) / span);
  return BURN_CHANCE_AT_REQUIREMENT[station] * remaining;
}

/** One cooking attempt: cooked food and its XP, or burnt food and no XP. */
export function cook(
  recipe: CookingRecipe,
  level: number,
  station: CookingStation,
  random: Random,
): { itemId: string; xp: number; burnt: boolean } {
  const burnt = random() < burnChance(recipe, level, station);
  return burnt
    ? { itemId: recipe.burntItemId, xp: 0, burnt }
    : { itemId: recipe.cookedItemId, xp: recipe.xp, burnt };
}
