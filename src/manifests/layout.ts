// Geometry of the world: areas share one tile grid without overlapping, everything placed in an
// area lies inside it on ground it may stand on and can be reached from the spawn point, and the
// starting area offers what the protocol promises a new character within view distance: in the view a
// player standing on the spawn point is sent.

import { buildingWalls } from "../game/map.js";
import type { AreaDef, Bounds, GatheringSkill, Tile } from "../game/types.js";
import { inViewFrom } from "../game/view-index.js";
import { AreaGrid, inBounds } from "./area-grid.js";
import type { Catalog, Report } from "./catalog.js";
import type { Manifests } from "./files.js";

/** Highest combat level that counts as a monster a new character can fight. */
const BEGINNER_MONSTER_LEVEL = 5;
const FILE = "world-areas.json";

const overlaps = (a: Bounds, b: Bounds) =>
  a.minX <= b.maxX && b.minX <= a.maxX && a.minZ <= b.maxZ && b.minZ <= a.maxZ;

function checkAreaPlacements(area: AreaDef, i: number, catalog: Catalog, report: Report): void {
  const at = (path: PropertyKey[], reason: string) => report(FILE, [i, ...path], reason);
  const grid = new AreaGrid(area, catalog.resources, catalog.buildings);
  const outside = (tile: Tile) => !inBounds(area.bounds, tile);
  const groundProblem = (tile: Tile) =>
    outside(tile)
      ? "lies outside the area"
      : grid.isWater(tile)
        ? "is on water"
        : grid.isBlockedGround(tile)
          ? "is on a blocked tile"
          : undefined;

  area.blocked.forEach((tile, n) => {
    if (outside(tile)) at(["blocked", n], "lies outside the area");
  });
  area.water.forEach((rect, n) => {
    const corners = [
      { x: rect.minX, z: rect.minZ },
      { x: rect.maxX, z: rect.maxZ },
    ];
    if (corners.some(outside)) at(["water", n], "lies outside the area");
  });
  area.buildings.forEach((placed, n) => {
    if (buildingWalls(placed, catalog.buildings.get(placed.buildingId)).some(outside))
      at(["buildings", n], "lies outside the area");
  });

  const spawnProblem = outside(area.spawnPoint)
    ? "lies outside the area's bounds"
    : grid.isWalkable(area.spawnPoint)
      ? undefined
      : "is not walkable";
  if (spawnProblem) at(["spawnPoint"], `spawn point ${spawnProblem}`);

  const occupied = new Map<string, string>();
  const place = (path: PropertyKey[], tile: Tile, what: string) => {
    const k = `${tile.x},${tile.z}`;
    const other = occupied.get(k);
    if (other) at(path, `${what} shares its tile with ${other}`);
    occupied.set(k, what);
    if (!grid.canReach(tile)) at(path, `${what} cannot be reached from the spawn point`);
  };
  area.resources.forEach((placed, n) => {
    const path = ["resources", n];
    const fishing = catalog.resources.get(placed.resourceId)?.skill === "fishing";
    const problem = fishing && !outside(placed) && grid.isWater(placed) ? undefined : groundProblem(placed);
    if (problem) at(path, `${placed.resourceId} ${problem}`);
    else if (fishing && !grid.isNextToWater(placed)) at(path, `${placed.resourceId} is not by the water`);
    else place(path, placed, placed.resourceId);
  });
  area.banks.forEach((tile, n) => {
    const problem = groundProblem(tile);
    if (problem) at(["banks", n], `bank ${problem}`);
    else place(["banks", n], tile, "a bank");
  });
  area.stations.forEach((placed, n) => {
    const problem = groundProblem(placed);
    if (problem) at(["stations", n], `${placed.stationId} ${problem}`);
    else place(["stations", n], placed, placed.stationId);
  });
  // An NPC stands on open ground of its own: not on a tree, rock, booth or station, nor on another NPC.
  area.npcSpawns.forEach((spawn, n) => {
    const problem = groundProblem(spawn) ?? (grid.isWalkable(spawn) ? undefined : "is not on open ground");
    if (problem) at(["npcSpawns", n], `${spawn.npcId} ${problem}`);
    else place(["npcSpawns", n], spawn, spawn.npcId);
  });
}

function checkStartingArea(m: Manifests, catalog: Catalog, report: Report): void {
  const area = m[FILE][0];
  if (!area) return;
  const at = (path: PropertyKey[], reason: string) => report(FILE, [0, ...path], `starting area: ${reason}`);
  const near = (tile: Tile) => inViewFrom(area.spawnPoint, tile);
  if (!area.safeZone) at(["safeZone"], "must be a safe zone");

  const kit = new Set(m["starter-kit.json"].map((entry) => entry.itemId));
  const kitToolKinds = new Set(
    m["tools.json"]
      .filter((tool) => kit.has(tool.itemId) && tool.levelRequired === 1)
      .map((tool) => tool.kind),
  );
  const gathering = new Map(
    [...m["gathering/woodcutting.json"], ...m["gathering/fishing.json"], ...m["gathering/mining.json"]].map(
      (g) => [g.resourceId, g],
    ),
  );
  const skills: GatheringSkill[] = ["woodcutting", "fishing", "mining"];
  for (const skill of skills) {
    const usable = area.resources.some((placed) => {
      const def = gathering.get(placed.resourceId);
      return (
        near(placed) && def?.skill === skill && def.levelRequired === 1 && kitToolKinds.has(def.toolKind)
      );
    });
    if (!usable)
      at(
        ["resources"],
        `no ${skill} resource in view of the spawn point that the starter kit can gather at level 1`,
      );
  }
  if (!kit.has("tinderbox")) report("starter-kit.json", [], "new characters need a tinderbox to light fires");
  if (!area.banks.some(near)) at(["banks"], "no bank in view of the spawn point");
  const hasRange = area.stations.some(
    (placed) => near(placed) && catalog.stations.get(placed.stationId)?.type === "range",
  );
  if (!hasRange) at(["stations"], "no cooking range in view of the spawn point");
  const hasBeginnerMonster = area.npcSpawns.some((spawn) => {
    const npc = catalog.npcs.get(spawn.npcId);
    return (
      near(spawn) && npc?.role === "monster" && !npc.aggressive && npc.combatLevel <= BEGINNER_MONSTER_LEVEL
    );
  });
  if (!hasBeginnerMonster)
    at(["npcSpawns"], "no low-level, non-aggressive monster in view of the spawn point");
}

export function checkLayout(m: Manifests, catalog: Catalog, report: Report): void {
  const areas = m[FILE];
  areas.forEach((area, i) => {
    areas.slice(0, i).forEach((other) => {
      if (overlaps(area.bounds, other.bounds)) report(FILE, [i, "bounds"], `overlaps area "${other.id}"`);
    });
    checkAreaPlacements(area, i, catalog, report);
  });
  checkStartingArea(m, catalog, report);
}
