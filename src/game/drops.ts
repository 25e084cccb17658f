import { type Random, randomInt } from "./random.js";
import type { DropEntry, ItemQuantity } from "./types.js";

/** Each entry drops independently with its chance, in a quantity uniform in min..max. */
export function rollDrops(drops: readonly DropEntry[], random: Random): ItemQuantity[] {
  const dropped: ItemQuantity[] = [];
  for (const entry of drops) {
    if (random() < entry.chance)
      dropped.push({ itemId: entry.itemId, quantity: randomInt(random, entry.min, entry.max) });
  }
  return dropped;
}
