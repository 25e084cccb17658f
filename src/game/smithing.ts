// Metalwork: ores smelted into bars at a furnace, bars smithed into weapons, armour and tools at an anvil.
import type { InventoryEntry } from "./character-state.js";
import { type GameError, gameError } from "./errors.js";
import { addItem, countItem, removeItem, type Stacking } from "./inventory.js";
import type { CraftingRecipe } from "./types.js";

export type MetalStation = "furnace" | "anvil";

/** Working metal on an anvil takes a hammer, carried in the inventory (RuneScape's rule). */
export const HAMMER_ITEM_ID = "hammer";

export function isMetalStation(type: string): type is MetalStation {
  return type === "furnace" || type === "anvil";
}

/** What a recipe asks of its maker, with names for the messages. */
export interface Maker {
  level: number;
  inventory: readonly InventoryEntry[];
  nameOf: (itemId: string) => string;
}

/** Why `maker` cannot make `recipe` once now, if anything stops it. */
export function metalworkProblem(recipe: CraftingRecipe, maker: Maker): GameError | undefined {
  const product = maker.nameOf(recipe.output.itemId);
  if (maker.level < recipe.levelRequired)
    return gameError("level_too_low", `You need smithing level ${recipe.levelRequired} to make ${product}.`);
  if (recipe.station === "anvil" && countItem(maker.inventory, HAMMER_ITEM_ID) === 0)
    return gameError("no_tool", "You need a hammer to work metal on an anvil.");
  const missing = recipe.inputs.find((input) => countItem(maker.inventory, input.itemId) < input.quantity);
  if (missing)
    return gameError(
      "missing_materials",
      `You need ${missing.quantity} ${maker.nameOf(missing.itemId)} to make ${product}.`,
    );
  return undefined;
}

/**
 * The recipe a use of `usedItemId` on a station starts: the one making `productId` when the player
 * names it, else the first (in the manifest's order) the player can make now, else the first that
 * takes the item, whose problem then says what is missing.
 */
export function chooseMetalRecipe(
  recipes: readonly CraftingRecipe[],
  station: MetalStation,
  usedItemId: string,
  productId: string | undefined,
  maker: Maker,
): CraftingRecipe | GameError {
  const fitting = recipes.filter(
    (recipe) => recipe.station === station && recipe.inputs.some((input) => input.itemId === usedItemId),
  );
  const used = maker.nameOf(usedItemId);
  if (productId !== undefined) {
    const named = fitting.find((recipe) => recipe.output.itemId === productId);
    return (
      named ?? gameError("invalid_target", `You cannot make ${maker.nameOf(productId)} from ${used} here.`)
    );
  }
  if (fitting.length === 0) return gameError("invalid_target", `You cannot work ${used} on a ${station}.`);
  return fitting.find((recipe) => metalworkProblem(recipe, maker) === undefined) ?? fitting[0]!;
}

/** The inventory after making the recipe once, or undefined when its product would not fit. */
export function makeOnce(
  inventory: readonly InventoryEntry[],
  recipe: CraftingRecipe,
  product: Stacking,
): InventoryEntry[] | undefined {
  let next = [...inventory];
  for (const input of recipe.inputs) next = removeItem(next, input.itemId, input.quantity).inventory;
  const made = addItem(next, product, recipe.output.quantity);
  return made.remaining > 0 ? undefined : made.inventory;
}
