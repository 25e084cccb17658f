// The walkable tiles of one area as the layout checks see them: ground that cannot be entered
// (blocked tiles, water, building walls), objects that stand on a tile (trees, rocks, bank booths,
// stations), and which tiles a player can walk to from the spawn point.
import { buildingWalls } from "../game/map.js";
import { tileKey as key } from "../game/tile.js";
import type { AreaDef, Bounds, BuildingDef, ResourceDef, Tile } from "../game/types.js";

export function inBounds(b: Bounds, tile: Tile): boolean {
  return tile.x >= b.minX && tile.x <= b.maxX && tile.z >= b.minZ && tile.z <= b.maxZ;
}

const CARDINAL: readonly Tile[] = [
  { x: 1, z: 0 },
  { x: -1, z: 0 },
  { x: 0, z: 1 },
  { x: 0, z: -1 },
];

export class AreaGrid {
  private readonly water = new Set<number>();
  private readonly ground = new Set<number>();
  private readonly objects = new Set<number>();
  private reachable: Set<number> | undefined;

  constructor(
    private readonly area: AreaDef,
    resources: ReadonlyMap<string, ResourceDef>,
    buildings: ReadonlyMap<string, BuildingDef>,
  ) {
    for (const rect of area.water) {
      for (let x = rect.minX; x <= rect.maxX; x++)
        for (let z = rect.minZ; z <= rect.maxZ; z++) this.water.add(key(x, z));
    }
    for (const tile of area.blocked) this.ground.add(key(tile.x, tile.z));
    for (const placed of area.buildings) {
      for (const tile of buildingWalls(placed, buildings.get(placed.buildingId)))
        this.ground.add(key(tile.x, tile.z));
    }
    for (const placed of area.resources) {
      if (resources.get(placed.resourceId)?.blocksMovement) this.objects.add(key(placed.x, placed.z));
    }
    for (const tile of [...area.banks, ...area.stations]) this.objects.add(key(tile.x, tile.z));
  }

  isWater(tile: Tile): boolean {
    return this.water.has(key(tile.x, tile.z));
  }

  /** Blocked ground or a wall: nothing may be placed here. */
  isBlockedGround(tile: Tile): boolean {
    return this.ground.has(key(tile.x, tile.z));
  }

  isWalkable(tile: Tile): boolean {
    const k = key(tile.x, tile.z);
    return (
      inBounds(this.area.bounds, tile) && !this.water.has(k) && !this.ground.has(k) && !this.objects.has(k)
    );
  }

  isNextToWater(tile: Tile): boolean {
    for (let dx = -1; dx <= 1; dx++)
      for (let dz = -1; dz <= 1; dz++) if (this.isWater({ x: tile.x + dx, z: tile.z + dz })) return true;
    return false;
  }

  /** Whether a player walking from the spawn point can stand on `tile` or beside it. */
  canReach(tile: Tile): boolean {
    const reachable = this.reachableFromSpawn();
    return [{ x: 0, z: 0 }, ...CARDINAL].some((d) => reachable.has(key(tile.x + d.x, tile.z + d.z)));
  }

  private reachableFromSpawn(): Set<number> {
    if (this.reachable) return this.reachable;
    const start = this.area.spawnPoint;
    const seen = new Set<number>();
    const queue: Tile[] = this.isWalkable(start) ? [start] : [];
    if (queue.length > 0) seen.add(key(start.x, start.z));
    for (let tile = queue.pop(); tile; tile = queue.pop()) {
      for (const d of CARDINAL) {
        const next = { x: tile.x + d.x, z: tile.z + d.z };
        const k = key(next.x, next.z);
        if (!seen.has(k) && this.isWalkable(next)) {
          seen.add(k);
          queue.push(next);
        }
      }
    }
    this.reachable = seen;
    return seen;
  }
}
