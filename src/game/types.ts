// The game's data model: the shapes of the manifests as the rules use them.
// src/manifests validates JSON into these types; src/game never imports from below itself.

export const SKILLS = [
  "attack",
  "strength",
  "defence",
  "constitution",
  "ranged",
  "magic",
  "prayer",
  "woodcutting",
  "fishing",
  "mining",
  "firemaking",
  "cooking",
  "smithing",
] as const;
export type SkillName = (typeof SKILLS)[number];

export const EQUIP_SLOTS = [
  "weapon",
  "shield",
  "head",
  "body",
  "legs",
  "hands",
  "feet",
  "cape",
  "neck",
  "ring",
  "ammo",
] as const;
export type EquipSlot = (typeof EQUIP_SLOTS)[number];

/** A tick is 600 ms: a minute is 100 of them (the rates the data gives "a minute" count in these). */
export const TICKS_PER_MINUTE = 100;

export const INVENTORY_SLOTS = 28;
/** The money item: player:sync's `coins` totals it, stores take and pay it. */
export const COINS_ITEM_ID = "coins";
/** Largest quantity one stack (inventory slot or bank row) may hold: a signed 32-bit integer. */
export const MAX_STACK = 2_147_483_647;
/** Food takes this many ticks to eat (RuneScape's delay): one bite at a time, not a stack in one tick. */
export const EAT_TICKS = 3;
/** Ticks a burial takes: bones go one at a time, as food does. */
export const BURY_TICKS = 2;

export interface Tile {
  x: number;
  z: number;
}

export interface Bounds {
  minX: number;
  minZ: number;
  maxX: number;
  maxZ: number;
}

export type LevelRequirements = Partial<Record<SkillName, number>>;

export interface CombatBonuses {
  attack: number;
  strength: number;
  defence: number;
  ranged: number;
  rangedStrength: number;
  prayer: number;
}

export type ItemType = "weapon" | "tool" | "resource" | "food" | "misc" | "armor" | "ammunition";

export interface ItemDef {
  id: string;
  name: string;
  type: ItemType;
  /** Base value in coins; trade confirmation values and death's kept-items rule use it. */
  value: number;
  stackable: boolean;
  tradeable: boolean;
  equipSlot?: EquipSlot;
  bonuses?: Partial<CombatBonuses>;
  requirements?: LevelRequirements;
  /** Hitpoints restored when eaten (food only). */
  heals?: number;
  /** Prayer XP for burying it (bones). */
  buryXp?: number;
  /** Weapons: ticks between attacks, and whether they fire ammunition. */
  attackSpeed?: number;
  combatType?: "melee" | "ranged";
  description?: string;
}

export interface DropEntry {
  itemId: string;
  min: number;
  max: number;
  /** Probability in 0..1 that this entry drops on a kill; 1 = always. */
  chance: number;
}

export interface NpcCombatStats {
  attack: number;
  strength: number;
  defence: number;
  constitution: number;
  ranged: number;
  attackBonus: number;
  strengthBonus: number;
  defenceBonus: number;
  /** Ticks between attacks. */
  attackSpeed: number;
}

export type NpcRole = "monster" | "banker" | "shopkeeper" | "citizen";

export interface NpcDef {
  id: string;
  name: string;
  role: NpcRole;
  combatLevel: number;
  /** Monsters only. */
  combat?: NpcCombatStats;
  aggressive: boolean;
  /** Tiles within which an aggressive NPC notices a player. */
  aggroRange: number;
  /** Tiles an idle NPC may wander from its spawn. */
  wanderRadius: number;
  /** Tiles from its spawn beyond which a chasing NPC gives up and walks back. */
  leashRange: number;
  respawnTicks: number;
  drops: DropEntry[];
  storeId?: string;
  description?: string;
}

export interface NpcSpawn {
  npcId: string;
  x: number;
  z: number;
}

export interface ResourcePlacement {
  resourceId: string;
  x: number;
  z: number;
}

export interface StationPlacement {
  stationId: string;
  x: number;
  z: number;
}

export interface BuildingPlacement {
  buildingId: string;
  /** South-west corner of the footprint. */
  x: number;
  z: number;
}

export interface AreaDef {
  id: string;
  name: string;
  bounds: Bounds;
  biome: string;
  safeZone: boolean;
  levelRange?: { min: number; max: number };
  spawnPoint: Tile;
  npcSpawns: NpcSpawn[];
  resources: ResourcePlacement[];
  /** Bank booths: standing next to one gives bank access (bankers also do). */
  banks: Tile[];
  stations: StationPlacement[];
  buildings: BuildingPlacement[];
  /** Individually blocked tiles (walls, rocks, fences). */
  blocked: Tile[];
  /** Water tiles: not walkable; fishing spots stand beside or on them. */
  water: Bounds[];
  musicId?: string;
}

export interface BiomeDef {
  id: string;
  name: string;
  groundColor: string;
  vegetation: string[];
  description?: string;
}

export type GatheringSkill = "woodcutting" | "fishing" | "mining";
export type ToolKind = "axe" | "pickaxe" | "fishing_net" | "fishing_rod" | "harpoon";

/** A gatherable object in the world: a tree, a rock, a fishing spot. */
export interface ResourceDef {
  id: string;
  name: string;
  skill: GatheringSkill;
  /** Whether the object blocks movement onto its tile (trees and rocks do, fishing spots are on water). */
  blocksMovement: boolean;
  description?: string;
}

/** What gathering a resource yields, from gathering/<skill>.json. */
export interface GatheringDef {
  resourceId: string;
  skill: GatheringSkill;
  levelRequired: number;
  toolKind: ToolKind;
  /** Item received on a successful attempt, and the XP for it. */
  itemId: string;
  xp: number;
  /** Success chance parameters out of 256 at level 1 (low) and level 99 (high). */
  low: number;
  high: number;
  /** Probability in 0..1 that a successful attempt depletes the resource. */
  depleteChance: number;
  respawnTicks: number;
}

export interface ToolDef {
  itemId: string;
  kind: ToolKind;
  skill: GatheringSkill;
  /** 1 = bronze-grade; each tier raises the success chance. */
  tier: number;
  levelRequired: number;
}

export interface StationDef {
  id: string;
  name: string;
  type: "range" | "furnace" | "anvil" | "fire";
}

export interface StoreItem {
  itemId: string;
  stock: number;
  price: number;
}

export interface StoreDef {
  id: string;
  name: string;
  npcId: string;
  items: StoreItem[];
}

export interface AmmunitionDef {
  itemId: string;
  rangedStrength: number;
  /** Weapon item ids that can fire it. */
  weapons: string[];
}

export interface PrayerDef {
  id: string;
  name: string;
  level: number;
  /** Prayer points drained per minute. */
  drain: number;
  /** Multipliers on effective levels while active, e.g. 1.05. */
  attack?: number;
  strength?: number;
  defence?: number;
  ranged?: number;
  description?: string;
}

export interface CookingRecipe {
  rawItemId: string;
  cookedItemId: string;
  burntItemId: string;
  levelRequired: number;
  xp: number;
  /** Level from which the food never burns. */
  stopBurnLevel: number;
}

export interface FiremakingRecipe {
  logItemId: string;
  levelRequired: number;
  xp: number;
  /** Ticks a fire made from these logs burns. */
  burnTicks: number;
}

export interface ItemQuantity {
  itemId: string;
  quantity: number;
}

export interface CraftingRecipe {
  id: string;
  inputs: ItemQuantity[];
  output: ItemQuantity;
  levelRequired: number;
  xp: number;
  station: StationDef["type"];
}

export interface MusicTrack {
  id: string;
  name: string;
  category: "normal" | "combat";
  file: string;
  areas: string[];
}

export interface VegetationDef {
  id: string;
  name: string;
  model: string;
  biomes: string[];
}

export interface BuildingDef {
  id: string;
  name: string;
  width: number;
  depth: number;
  /** Offsets inside the footprint that stay walkable (doors). */
  doors: Tile[];
}

export type UnlockType = "item" | "ability" | "area" | "quest" | "activity";

export interface SkillUnlock {
  level: number;
  description: string;
  type: UnlockType;
}

export type SkillUnlockMap = Record<SkillName, SkillUnlock[]>;

/** Everything the rules need, indexed once at load. */
export interface GameData {
  items: ReadonlyMap<string, ItemDef>;
  npcs: ReadonlyMap<string, NpcDef>;
  areas: readonly AreaDef[];
  biomes: ReadonlyMap<string, BiomeDef>;
  resources: ReadonlyMap<string, ResourceDef>;
  /** Keyed by resource id. */
  gathering: ReadonlyMap<string, GatheringDef>;
  /** Keyed by item id. */
  tools: ReadonlyMap<string, ToolDef>;
  stations: ReadonlyMap<string, StationDef>;
  stores: ReadonlyMap<string, StoreDef>;
  /** Keyed by item id. */
  ammunition: ReadonlyMap<string, AmmunitionDef>;
  prayers: ReadonlyMap<string, PrayerDef>;
  /** Keyed by raw item id. */
  cooking: ReadonlyMap<string, CookingRecipe>;
  /** Keyed by log item id. */
  firemaking: ReadonlyMap<string, FiremakingRecipe>;
  smelting: readonly CraftingRecipe[];
  smithing: readonly CraftingRecipe[];
  buildings: ReadonlyMap<string, BuildingDef>;
  music: readonly MusicTrack[];
  vegetation: readonly VegetationDef[];
  skillUnlocks: SkillUnlockMap;
  /** The area new characters start in (the first area of world-areas.json). */
  startingAreaId: string;
  /** Items every new character starts with. */
  starterKit: ItemQuantity[];
}
