// A small hand-made world for the World tests, independent of the real manifests.
//
//   x: 0..60, z: 0..60, one area ("meadow"), spawn at (10,10).
//   bank booth (12,10); tree (14,10); rock (16,10); fishing spot (22,2) on water x 20..25, z 0..5;
//   range (8,10); goblin (10,20), wandering radius 0; banker (30,30);
//   a closed ring of blocked tiles around (50,50); a 3x3 house at (40,40) with its door at (41,40).
import { newCharacter } from "../../src/game/character.js";
import type { CharacterState } from "../../src/game/character-state.js";
import { seededRandom } from "../../src/game/random.js";
import type {
  AreaDef,
  GameData,
  GatheringDef,
  ItemDef,
  NpcDef,
  SkillUnlockMap,
  Tile,
} from "../../src/game/types.js";
import { World, type WorldOptions } from "../../src/game/world.js";
import { GOBLIN } from "./fixtures.js";

function item(def: Partial<ItemDef> & Pick<ItemDef, "id">): ItemDef {
  return { name: def.id, type: "misc", value: 1, stackable: false, tradeable: true, ...def };
}

const items = [
  item({ id: "coins", stackable: true }),
  item({ id: "logs", type: "resource", value: 4 }),
  item({ id: "copper_ore", type: "resource" }),
  item({ id: "raw_shrimps", type: "food" }),
  item({ id: "shrimps", type: "food", heals: 3 }),
  item({ id: "burnt_shrimp", type: "food" }),
  item({ id: "bones", buryXp: 4.5 }),
  item({ id: "tinderbox", type: "tool" }),
  item({ id: "small_fishing_net", type: "tool" }),
  item({ id: "bronze_pickaxe", type: "tool", equipSlot: "weapon" }),
  item({ id: "bronze_axe", type: "tool", equipSlot: "weapon", bonuses: { attack: 2 } }),
  item({
    id: "bronze_sword",
    type: "weapon",
    value: 26,
    equipSlot: "weapon",
    bonuses: { attack: 5, strength: 5 },
    attackSpeed: 4,
    combatType: "melee",
  }),
  item({
    id: "rune_sword",
    type: "weapon",
    value: 20_000,
    equipSlot: "weapon",
    bonuses: { attack: 38, strength: 39 },
    requirements: { attack: 40 },
    attackSpeed: 4,
    combatType: "melee",
  }),
];

const goblin: NpcDef = {
  ...GOBLIN,
  aggroRange: 3,
  wanderRadius: 0,
  leashRange: 10,
  respawnTicks: 30,
  drops: [
    { itemId: "bones", min: 1, max: 1, chance: 1 },
    { itemId: "coins", min: 5, max: 5, chance: 1 },
  ],
};

const banker: NpcDef = {
  id: "banker",
  name: "Banker",
  role: "banker",
  combatLevel: 0,
  aggressive: false,
  aggroRange: 0,
  wanderRadius: 0,
  leashRange: 0,
  respawnTicks: 0,
  drops: [],
};

/** A closed square of blocked tiles around (50,50): the inside cannot be reached. */
function ring(centre: Tile, radius: number): Tile[] {
  const tiles: Tile[] = [];
  for (let d = -radius; d <= radius; d++) {
    tiles.push({ x: centre.x + d, z: centre.z - radius }, { x: centre.x + d, z: centre.z + radius });
    tiles.push({ x: centre.x - radius, z: centre.z + d }, { x: centre.x + radius, z: centre.z + d });
  }
  return tiles;
}

export const SPAWN: Tile = { x: 10, z: 10 };
export const BOOTH: Tile = { x: 12, z: 10 };
export const GOBLIN_SPAWN: Tile = { x: 10, z: 20 };
export const ENCLOSED: Tile = { x: 50, z: 50 };

const meadow: AreaDef = {
  id: "meadow",
  name: "Meadow",
  bounds: { minX: 0, minZ: 0, maxX: 60, maxZ: 60 },
  biome: "grassland",
  safeZone: false,
  spawnPoint: SPAWN,
  npcSpawns: [
    { npcId: "goblin", ...GOBLIN_SPAWN },
    { npcId: "banker", x: 30, z: 30 },
  ],
  resources: [
    { resourceId: "tree", x: 14, z: 10 },
    { resourceId: "copper_rock", x: 16, z: 10 },
    { resourceId: "net_spot", x: 22, z: 2 },
  ],
  banks: [BOOTH],
  stations: [{ stationId: "cooking_range", x: 8, z: 10 }],
  buildings: [{ buildingId: "house", x: 40, z: 40 }],
  blocked: ring(ENCLOSED, 2),
  water: [{ minX: 20, minZ: 0, maxX: 25, maxZ: 5 }],
};

function gathering(def: Omit<GatheringDef, "low" | "high" | "depleteChance" | "respawnTicks">): GatheringDef {
  return { low: 128, high: 255, depleteChance: 0.2, respawnTicks: 20, ...def };
}

export function gameData(overrides: Partial<GameData> = {}): GameData {
  return {
    items: new Map(items.map((def) => [def.id, def])),
    npcs: new Map([
      [goblin.id, goblin],
      [banker.id, banker],
    ]),
    areas: [meadow],
    biomes: new Map([
      ["grassland", { id: "grassland", name: "Grassland", groundColor: "#4a7", vegetation: [] }],
    ]),
    resources: new Map([
      ["tree", { id: "tree", name: "Tree", skill: "woodcutting", blocksMovement: true }],
      ["copper_rock", { id: "copper_rock", name: "Copper rock", skill: "mining", blocksMovement: true }],
      ["net_spot", { id: "net_spot", name: "Fishing spot", skill: "fishing", blocksMovement: false }],
    ]),
    gathering: new Map([
      [
        "tree",
        gathering({
          resourceId: "tree",
          skill: "woodcutting",
          levelRequired: 1,
          toolKind: "axe",
          itemId: "logs",
          xp: 25,
        }),
      ],
      [
        "copper_rock",
        gathering({
          resourceId: "copper_rock",
          skill: "mining",
          levelRequired: 1,
          toolKind: "pickaxe",
          itemId: "copper_ore",
          xp: 17.5,
        }),
      ],
      [
        "net_spot",
        gathering({
          resourceId: "net_spot",
          skill: "fishing",
          levelRequired: 1,
          toolKind: "fishing_net",
          itemId: "raw_shrimps",
          xp: 10,
        }),
      ],
    ]),
    tools: new Map([
      ["bronze_axe", { itemId: "bronze_axe", kind: "axe", skill: "woodcutting", tier: 1, levelRequired: 1 }],
      [
        "bronze_pickaxe",
        { itemId: "bronze_pickaxe", kind: "pickaxe", skill: "mining", tier: 1, levelRequired: 1 },
      ],
      [
        "small_fishing_net",
        { itemId: "small_fishing_net", kind: "fishing_net", skill: "fishing", tier: 1, levelRequired: 1 },
      ],
    ]),
    stations: new Map([
      ["cooking_range", { id: "cooking_range", name: "Cooking range", type: "range" }],
      ["fire", { id: "fire", name: "Fire", type: "fire" }],
    ]),
    stores: new Map(),
    ammunition: new Map(),
    prayers: new Map(),
    cooking: new Map([
      [
        "raw_shrimps",
        {
          rawItemId: "raw_shrimps",
          cookedItemId: "shrimps",
          burntItemId: "burnt_shrimp",
          levelRequired: 1,
          xp: 30,
          stopBurnLevel: 34,
        },
      ],
    ]),
    firemaking: new Map([["logs", { logItemId: "logs", levelRequired: 1, xp: 40, burnTicks: 100 }]]),
    smelting: [],
    smithing: [],
    buildings: new Map([
      ["house", { id: "house", name: "House", width: 3, depth: 3, doors: [{ x: 1, z: 0 }] }],
    ]),
    music: [],
    vegetation: [],
    skillUnlocks: {} as SkillUnlockMap,
    startingAreaId: "meadow",
    starterKit: [
      { itemId: "bronze_axe", quantity: 1 },
      { itemId: "bronze_pickaxe", quantity: 1 },
      { itemId: "small_fishing_net", quantity: 1 },
      { itemId: "tinderbox", quantity: 1 },
      { itemId: "bronze_sword", quantity: 1 },
      { itemId: "shrimps", quantity: 2 },
      { itemId: "coins", quantity: 25 },
    ],
    ...overrides,
  };
}

export function character(id = "p1", changes: Partial<CharacterState> = {}): CharacterState {
  return { ...newCharacter(id, id.toUpperCase(), gameData()), ...changes };
}

export function makeWorld(options: Partial<WorldOptions> = {}): World {
  return new World({ data: gameData(), random: seededRandom(7), ...options });
}

/** A world with one player already in it, standing at `at`. */
export function worldWith(at: Tile = SPAWN, changes: Partial<CharacterState> = {}): World {
  const world = makeWorld();
  world.join(character("p1", { position: { ...at }, ...changes }));
  return world;
}

/** Steps until `done` holds (at most `limit` ticks), returning every report on the way. */
export function stepUntil(world: World, done: () => boolean, limit = 500) {
  const reports = [];
  for (let tick = 0; tick < limit && !done(); tick++) reports.push(world.step());
  if (!done()) throw new Error(`condition not met within ${limit} ticks`);
  return reports;
}
