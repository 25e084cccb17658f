// Items are spread over several files; this gathers them with the file each one came from, so
// problems can point at the right file.
import type { ItemDef, ItemType } from "../game/types.js";
import { ITEM_FILES, type Manifests } from "./files.js";

export interface SourcedItem {
  item: ItemDef;
  file: (typeof ITEM_FILES)[number];
  index: number;
}

/** Which item types each split file may hold (`items.json` holds any). */
export const ITEM_FILE_TYPES: Record<(typeof ITEM_FILES)[number], readonly ItemType[] | "any"> = {
  "items.json": "any",
  "items/weapons.json": ["weapon", "ammunition"],
  "items/tools.json": ["tool"],
  "items/resources.json": ["resource"],
  "items/food.json": ["food"],
  "items/misc.json": ["misc"],
  "items/armor.json": ["armor"],
};

export function allItems(manifests: Manifests): SourcedItem[] {
  return ITEM_FILES.flatMap((file) => manifests[file].map((item, index) => ({ item, file, index })));
}
