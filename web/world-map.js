// The tile map as the manifests describe it: each area's ground (its biome's colour), water, blocked
// tiles, building walls (a building's footprint but its doors) and bank booths; and each item's kind.
import { manifest } from "./common.js";

const key = (x, z) => `${x},${z}`;

export async function loadWorldMap() {
  const [
    areas,
    biomes,
    buildings,
    resources,
    npcs,
    stations,
    items,
    smelting,
    smithing,
    prayers,
    woodcutting,
    mining,
    fishing,
    cooking,
  ] = await Promise.all(
    [
      "world-areas.json",
      "biomes.json",
      "buildings.json",
      "resources.json",
      "npcs.json",
      "stations.json",
      "items.json",
      "recipes/smelting.json",
      "recipes/smithing.json",
      "prayers.json",
      "gathering/woodcutting.json",
      "gathering/mining.json",
      "gathering/fishing.json",
      "recipes/cooking.json",
    ].map(manifest),
  );
  const recipes = [...smelting, ...smithing];
  const gathered = { woodcutting, mining, fishing };
  return new WorldMap(areas, biomes, buildings, {
    resources,
    npcs,
    stations,
    items,
    recipes,
    prayers,
    gathered,
    cooking,
  });
}

/** Kinds the item manifest's `type` alone gives; the others come from what makes the item. */
const KIND_OF_TYPE = { weapon: "weapon", ammunition: "weapon", armor: "armour", tool: "tool", food: "food" };

/**
 * Each item's kind as a player tells loot on the ground apart: coins, bones (buried for prayer), logs,
 * ore, bar, fish (raw or cooked), burnt (food), food, weapon, armour, tool, or "other".
 */
function itemKinds({ items, recipes, gathered, cooking }) {
  const kinds = new Map(items.map((item) => [item.id, KIND_OF_TYPE[item.type] ?? "other"]));
  const gatheredBy = (skill) => gathered[skill].map((source) => source.itemId);
  const fish = new Set(gatheredBy("fishing"));
  for (const id of gatheredBy("woodcutting")) kinds.set(id, "logs");
  for (const id of gatheredBy("mining")) kinds.set(id, "ore");
  for (const id of fish) kinds.set(id, "fish");
  for (const recipe of cooking) {
    if (fish.has(recipe.rawItemId)) kinds.set(recipe.cookedItemId, "fish");
    kinds.set(recipe.burntItemId, "burnt");
  }
  for (const recipe of recipes) if (recipe.station === "furnace") kinds.set(recipe.output.itemId, "bar");
  for (const item of items) if (item.buryXp) kinds.set(item.id, "bones");
  kinds.set("coins", "coins");
  return kinds;
}

export class WorldMap {
  constructor(areas, biomes, buildings, catalog) {
    this.areas = areas;
    this.groundColor = new Map(biomes.map((b) => [b.id, b.groundColor]));
    /** Tile key -> "water" | "blocked" | "wall" | "bank". */
    this.features = new Map();
    this.resources = new Map(catalog.resources.map((r) => [r.id, r]));
    this.npcs = new Map(catalog.npcs.map((n) => [n.id, n]));
    this.stations = new Map(catalog.stations.map((s) => [s.id, s]));
    this.items = new Map(catalog.items.map((i) => [i.id, i]));
    /** Item id -> its kind on the ground (see itemKinds). */
    this.itemKinds = itemKinds(catalog);
    /** What furnaces and anvils make: `{station, inputs: [{itemId, quantity}], output, levelRequired}`. */
    this.recipes = catalog.recipes;
    /** The prayers players switch on and off, in the manifest's order (by level). */
    this.prayers = catalog.prayers;
    const buildingDefs = new Map(buildings.map((b) => [b.id, b]));
    for (const area of areas) {
      for (const rect of area.water ?? [])
        for (let x = rect.minX; x <= rect.maxX; x++)
          for (let z = rect.minZ; z <= rect.maxZ; z++) this.features.set(key(x, z), "water");
      for (const tile of area.blocked ?? []) this.features.set(key(tile.x, tile.z), "blocked");
      for (const placed of area.buildings ?? []) {
        const def = buildingDefs.get(placed.buildingId);
        if (!def) continue;
        const doors = new Set(def.doors.map((d) => key(d.x, d.z)));
        for (let dx = 0; dx < def.width; dx++)
          for (let dz = 0; dz < def.depth; dz++)
            this.features.set(key(placed.x + dx, placed.z + dz), doors.has(key(dx, dz)) ? "door" : "wall");
      }
      for (const bank of area.banks ?? []) this.features.set(key(bank.x, bank.z), "bank");
    }
  }

  areaAt(x, z) {
    return this.areas.find(
      (a) => x >= a.bounds.minX && x <= a.bounds.maxX && z >= a.bounds.minZ && z <= a.bounds.maxZ,
    );
  }

  featureAt(x, z) {
    return this.features.get(key(x, z));
  }

  /** Whether a player may stand on the tile, as far as the map says (entities that block are checked apart). */
  isOpenGround(x, z) {
    const feature = this.featureAt(x, z);
    return this.areaAt(x, z) !== undefined && (feature === undefined || feature === "door");
  }

  itemName(itemId) {
    return this.items.get(itemId)?.name ?? itemId;
  }

  itemKind(itemId) {
    return this.itemKinds.get(itemId) ?? "other";
  }
}
