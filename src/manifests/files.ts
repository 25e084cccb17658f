// The manifest files the service knows: what the startup fetch asks the asset host for, and the
// schema each file must match.
import { z } from "zod";
import {
  ammunitionSchema,
  areaSchema,
  biomeSchema,
  buildingSchema,
  cookingSchema,
  craftingSchema,
  firemakingSchema,
  gatheringSchema,
  itemQuantitySchema,
  itemSchema,
  musicSchema,
  npcSchema,
  prayerSchema,
  resourceSchema,
  skillUnlocksFileSchema,
  stationSchema,
  storeSchema,
  toolSchema,
  vegetationSchema,
} from "./schemas.js";

const items = z.array(itemSchema);

const manifestSchemas = {
  "items.json": items,
  "items/weapons.json": items,
  "items/tools.json": items,
  "items/resources.json": items,
  "items/food.json": items,
  "items/misc.json": items,
  "items/armor.json": items,
  "npcs.json": z.array(npcSchema),
  "resources.json": z.array(resourceSchema),
  "tools.json": z.array(toolSchema),
  "biomes.json": z.array(biomeSchema),
  "world-areas.json": z.array(areaSchema).min(1),
  "stores.json": z.array(storeSchema),
  "music.json": z.array(musicSchema),
  "vegetation.json": z.array(vegetationSchema),
  "buildings.json": z.array(buildingSchema),
  "ammunition.json": z.array(ammunitionSchema),
  "prayers.json": z.array(prayerSchema),
  "stations.json": z.array(stationSchema),
  "gathering/woodcutting.json": z.array(gatheringSchema),
  "gathering/fishing.json": z.array(gatheringSchema),
  "gathering/mining.json": z.array(gatheringSchema),
  "recipes/cooking.json": z.array(cookingSchema),
  "recipes/firemaking.json": z.array(firemakingSchema),
  "recipes/smelting.json": z.array(craftingSchema),
  "recipes/smithing.json": z.array(craftingSchema),
  "skill-unlocks.json": skillUnlocksFileSchema,
  "starter-kit.json": z.array(itemQuantitySchema).min(1),
} as const;

export type ManifestFile = keyof typeof manifestSchemas;
/** The parsed content of every manifest file. */
export type Manifests = { [F in ManifestFile]: z.output<(typeof manifestSchemas)[F]> };

/** The interface's startup list: every file fetched from `{cdn}/manifests/` and kept in the cache. */
export const MANIFEST_FILES = Object.keys(manifestSchemas) as ManifestFile[];

/**
 * Items may come as one `items.json` or split by type under `items/` (loading rule 4), so each of these
 * files may be absent on its own; every other manifest is required.
 */
export const ITEM_FILES = [
  "items.json",
  "items/weapons.json",
  "items/tools.json",
  "items/resources.json",
  "items/food.json",
  "items/misc.json",
  "items/armor.json",
] as const satisfies readonly ManifestFile[];

const SPLIT_ITEM_FILES_REQUIRED = [
  "items/weapons.json",
  "items/tools.json",
  "items/resources.json",
  "items/food.json",
  "items/misc.json",
];
const CORE_REQUIRED = ["npcs.json", "world-areas.json", "biomes.json", "stores.json"];

export function isManifestFile(file: string): file is ManifestFile {
  return Object.hasOwn(manifestSchemas, file);
}

export function schemaOf(file: ManifestFile): z.ZodType<Manifests[ManifestFile]> {
  return manifestSchemas[file];
}

/** loading rule 4: the required manifests that `has` says are missing (empty when all are there). */
export function missingRequiredManifests(has: (file: string) => boolean): string[] {
  const missing = CORE_REQUIRED.filter((file) => !has(file));
  if (!has("items.json")) missing.push(...SPLIT_ITEM_FILES_REQUIRED.filter((file) => !has(file)));
  return missing;
}
