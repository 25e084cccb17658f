// zod schemas for every manifest file. Each entity schema `satisfies` the matching interface of
// src/game/types.ts, so the compiler rejects any drift between the data files and the rules.
// Objects are strict: an unknown key is almost always a typo in hand-written data.
import { z } from "zod";
import { MAX_TILE_COORDINATE } from "../game/tile.js";
import {
  type AmmunitionDef,
  type AreaDef,
  type BiomeDef,
  type BuildingDef,
  type BuildingPlacement,
  type CookingRecipe,
  type CraftingRecipe,
  type DropEntry,
  EQUIP_SLOTS,
  type FiremakingRecipe,
  type GatheringDef,
  type ItemDef,
  type ItemQuantity,
  type MusicTrack,
  type NpcDef,
  type NpcSpawn,
  type PrayerDef,
  type ResourceDef,
  type ResourcePlacement,
  SKILLS,
  type SkillUnlock,
  type StationDef,
  type StationPlacement,
  type StoreDef,
  type ToolDef,
  type VegetationDef,
} from "../game/types.js";

const id = z.string().regex(/^[a-z0-9_]+$/, "ids are lower-case letters, digits and underscores");
const count = z.number().int().nonnegative();
const positive = z.number().int().positive();
const level = z.number().int().min(1).max(99);
/** XP is counted in tenths (see gainXp), so an action's XP is a whole number of tenths. */
const xp = z
  .number()
  .positive()
  .refine(
    (value) => Math.abs(value * 10 - Math.round(value * 10)) < 1e-6,
    "XP is given in tenths (such as 37.5)",
  );
const probability = z.number().min(0).max(1);
const coordinate = z.number().int().nonnegative().max(MAX_TILE_COORDINATE);
const skill = z.enum(SKILLS);
const gatheringSkill = z.enum(["woodcutting", "fishing", "mining"]);
const toolKind = z.enum(["axe", "pickaxe", "fishing_net", "fishing_rod", "harpoon"]);
const stationType = z.enum(["range", "furnace", "anvil", "fire"]);

const tile = z.strictObject({ x: coordinate, z: coordinate });
const bounds = z
  .strictObject({ minX: coordinate, minZ: coordinate, maxX: coordinate, maxZ: coordinate })
  .refine((b) => b.minX <= b.maxX && b.minZ <= b.maxZ, "min must not exceed max");
const levelRequirements = z.partialRecord(skill, level);

export const itemSchema = z.strictObject({
  id,
  name: z.string().min(1),
  type: z.enum(["weapon", "tool", "resource", "food", "misc", "armor", "ammunition"]),
  value: count,
  stackable: z.boolean(),
  tradeable: z.boolean(),
  equipSlot: z.enum(EQUIP_SLOTS).optional(),
  bonuses: z
    .strictObject({
      attack: z.number().int(),
      strength: z.number().int(),
      defence: z.number().int(),
      ranged: z.number().int(),
      rangedStrength: z.number().int(),
      prayer: z.number().int(),
    })
    .partial()
    .optional(),
  requirements: levelRequirements.optional(),
  heals: positive.optional(),
  buryXp: xp.optional(),
  attackSpeed: positive.optional(),
  combatType: z.enum(["melee", "ranged"]).optional(),
  description: z.string().optional(),
}) satisfies z.ZodType<ItemDef>;

const dropSchema = z
  .strictObject({ itemId: id, min: positive, max: positive, chance: probability })
  .refine((d) => d.min <= d.max, "min must not exceed max") satisfies z.ZodType<DropEntry>;

export const npcSchema = z.strictObject({
  id,
  name: z.string().min(1),
  role: z.enum(["monster", "banker", "shopkeeper", "citizen"]),
  combatLevel: count,
  combat: z
    .strictObject({
      attack: level,
      strength: level,
      defence: level,
      constitution: level,
      ranged: level,
      attackBonus: z.number().int(),
      strengthBonus: z.number().int(),
      defenceBonus: z.number().int(),
      attackSpeed: positive,
    })
    .optional(),
  aggressive: z.boolean(),
  aggroRange: count,
  wanderRadius: count,
  leashRange: count,
  respawnTicks: count,
  drops: z.array(dropSchema),
  storeId: id.optional(),
  description: z.string().optional(),
}) satisfies z.ZodType<NpcDef>;

const npcSpawn = z.strictObject({ npcId: id, x: coordinate, z: coordinate }) satisfies z.ZodType<NpcSpawn>;
const resourcePlacement = z.strictObject({
  resourceId: id,
  x: coordinate,
  z: coordinate,
}) satisfies z.ZodType<ResourcePlacement>;
const stationPlacement = z.strictObject({
  stationId: id,
  x: coordinate,
  z: coordinate,
}) satisfies z.ZodType<StationPlacement>;
const buildingPlacement = z.strictObject({
  buildingId: id,
  x: coordinate,
  z: coordinate,
}) satisfies z.ZodType<BuildingPlacement>;

export const areaSchema = z.strictObject({
  id,
  name: z.string().min(1),
  bounds,
  biome: id,
  safeZone: z.boolean(),
  levelRange: z
    .strictObject({ min: level, max: level })
    .refine((r) => r.min <= r.max, "min must not exceed max")
    .optional(),
  spawnPoint: tile,
  npcSpawns: z.array(npcSpawn),
  resources: z.array(resourcePlacement),
  banks: z.array(tile),
  stations: z.array(stationPlacement),
  buildings: z.array(buildingPlacement),
  blocked: z.array(tile),
  water: z.array(bounds),
  musicId: id.optional(),
}) satisfies z.ZodType<AreaDef>;

export const biomeSchema = z.strictObject({
  id,
  name: z.string().min(1),
  groundColor: z.string().regex(/^#[0-9a-f]{6}$/i, "a colour like #6fa84a"),
  vegetation: z.array(id),
  description: z.string().optional(),
}) satisfies z.ZodType<BiomeDef>;

export const resourceSchema = z.strictObject({
  id,
  name: z.string().min(1),
  skill: gatheringSkill,
  blocksMovement: z.boolean(),
  description: z.string().optional(),
}) satisfies z.ZodType<ResourceDef>;

export const gatheringSchema = z
  .strictObject({
    resourceId: id,
    skill: gatheringSkill,
    levelRequired: level,
    toolKind,
    itemId: id,
    xp,
    low: z.number().int().min(0).max(256),
    high: z.number().int().min(0).max(256),
    depleteChance: probability,
    respawnTicks: count,
  })
  .refine((g) => g.low <= g.high, "low must not exceed high") satisfies z.ZodType<GatheringDef>;

export const toolSchema = z.strictObject({
  itemId: id,
  kind: toolKind,
  skill: gatheringSkill,
  tier: positive,
  levelRequired: level,
}) satisfies z.ZodType<ToolDef>;

export const stationSchema = z.strictObject({
  id,
  name: z.string().min(1),
  type: stationType,
}) satisfies z.ZodType<StationDef>;

export const storeSchema = z.strictObject({
  id,
  name: z.string().min(1),
  npcId: id,
  items: z.array(z.strictObject({ itemId: id, stock: count, price: count })),
}) satisfies z.ZodType<StoreDef>;

export const ammunitionSchema = z.strictObject({
  itemId: id,
  rangedStrength: count,
  weapons: z.array(id).min(1),
}) satisfies z.ZodType<AmmunitionDef>;

const multiplier = z.number().min(1).max(2).optional();
export const prayerSchema = z.strictObject({
  id,
  name: z.string().min(1),
  level,
  drain: z.number().positive(),
  attack: multiplier,
  strength: multiplier,
  defence: multiplier,
  ranged: multiplier,
  description: z.string().optional(),
}) satisfies z.ZodType<PrayerDef>;

export const cookingSchema = z.strictObject({
  rawItemId: id,
  cookedItemId: id,
  burntItemId: id,
  levelRequired: level,
  xp,
  stopBurnLevel: level,
}) satisfies z.ZodType<CookingRecipe>;

export const firemakingSchema = z.strictObject({
  logItemId: id,
  levelRequired: level,
  xp,
  burnTicks: positive,
}) satisfies z.ZodType<FiremakingRecipe>;

export const itemQuantitySchema = z.strictObject({
  itemId: id,
  quantity: positive,
}) satisfies z.ZodType<ItemQuantity>;

export const craftingSchema = z.strictObject({
  id,
  inputs: z.array(itemQuantitySchema).min(1),
  output: itemQuantitySchema,
  levelRequired: level,
  xp,
  station: stationType,
}) satisfies z.ZodType<CraftingRecipe>;

export const musicSchema = z.strictObject({
  id,
  name: z.string().min(1),
  category: z.enum(["normal", "combat"]),
  file: z.string().regex(/^[a-z0-9_-]+$/, "a file name without extension"),
  areas: z.array(id),
}) satisfies z.ZodType<MusicTrack>;

export const vegetationSchema = z.strictObject({
  id,
  name: z.string().min(1),
  model: z.string().min(1),
  biomes: z.array(id).min(1),
}) satisfies z.ZodType<VegetationDef>;

export const buildingSchema = z.strictObject({
  id,
  name: z.string().min(1),
  width: positive,
  depth: positive,
  doors: z.array(tile),
}) satisfies z.ZodType<BuildingDef>;

const skillUnlockSchema = z.strictObject({
  level,
  description: z.string().min(1),
  type: z.enum(["item", "ability", "area", "quest", "activity"]),
}) satisfies z.ZodType<SkillUnlock>;

/** Hand-written unlocks; the ones implied by other manifests (tools, recipes...) are derived. */
export const skillUnlocksFileSchema = z.partialRecord(skill, z.array(skillUnlockSchema));
