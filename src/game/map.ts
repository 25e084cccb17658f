import { tileKey } from "./tile.js";
import type { AreaDef, Bounds, BuildingDef, GameData, Tile } from "./types.js";

/** The tile grid is held in memory: 16 M tiles (64 MB) is far beyond any world the manifests describe. */
const MAX_TILES = 16_000_000;

function contains(bounds: Bounds, x: number, z: number): boolean {
  return x >= bounds.minX && x <= bounds.maxX && z >= bounds.minZ && z <= bounds.maxZ;
}

/** The area a tile lies in (areas do not overlap). */
export function areaContaining(areas: readonly AreaDef[], tile: Tile): AreaDef | undefined {
  return areas.find((area) => contains(area.bounds, tile.x, tile.z));
}

/**
 * Static walkability of the world, built once from the areas: a tile is walkable when it lies
 * inside some area and is not a blocked tile, water, part of a building (doors excepted) or under
 * a resource that blocks movement (trees and rocks stay solid while depleted, as stumps do).
 * Walkable tiles are labelled with their connected region, so an unreachable target is known
 * at once instead of after a long, fruitless search.
 */
export class WorldMap {
  private readonly minX: number;
  private readonly minZ: number;
  private readonly width: number;
  private readonly depth: number;
  /** Per tile of the areas' bounding box: 0 = not walkable, otherwise its region's number. */
  private readonly regions: Int32Array;
  /** Tiles that block movement and sight alike: walls, blocked tiles, trees and rocks (water blocks only movement). */
  private readonly solid: Set<number>;

  constructor(
    private readonly areas: readonly AreaDef[],
    data: Pick<GameData, "buildings" | "resources">,
  ) {
    this.minX = Math.min(...areas.map((area) => area.bounds.minX));
    this.minZ = Math.min(...areas.map((area) => area.bounds.minZ));
    this.width = Math.max(...areas.map((area) => area.bounds.maxX)) - this.minX + 1;
    this.depth = Math.max(...areas.map((area) => area.bounds.maxZ)) - this.minZ + 1;
    if (!(this.width * this.depth <= MAX_TILES)) throw new RangeError("the areas span too many tiles");
    const solid = solidTiles(areas, data);
    this.solid = solid;
    this.regions = new Int32Array(this.width * this.depth);
    for (const area of areas) {
      const { minX, minZ, maxX, maxZ } = area.bounds;
      for (let x = minX; x <= maxX; x++) {
        for (let z = minZ; z <= maxZ; z++) {
          const open = !solid.has(tileKey(x, z)) && !area.water.some((water) => contains(water, x, z));
          this.regions[this.index(x, z)] = open ? -1 : 0;
        }
      }
    }
    this.labelRegions();
  }

  /** The widest extent of the map, in tiles: no tile of it lies farther from another along either axis. */
  get span(): number {
    return Math.max(this.width, this.depth);
  }

  isWalkable(x: number, z: number): boolean {
    return this.regionAt(x, z) > 0;
  }

  /** The connected region of a walkable tile, 0 for any other tile. */
  regionAt(x: number, z: number): number {
    const dx = x - this.minX;
    const dz = z - this.minZ;
    if (dx < 0 || dz < 0 || dx >= this.width || dz >= this.depth) return 0;
    return this.regions[dx * this.depth + dz]!;
  }

  areaAt(x: number, z: number): AreaDef | undefined {
    return areaContaining(this.areas, { x, z });
  }

  /** Whether a single step from `from` to the neighbouring `to` is allowed: diagonals may not cut a corner. */
  canStep(from: Tile, to: Tile): boolean {
    return this.canStepBetween(from.x, from.z, to.x, to.z);
  }

  /** canStep on coordinates, for the path search's inner loop. */
  canStepBetween(fromX: number, fromZ: number, toX: number, toZ: number): boolean {
    if (!this.isWalkable(toX, toZ)) return false;
    if (fromX === toX || fromZ === toZ) return true;
    return this.isWalkable(toX, fromZ) && this.isWalkable(fromX, toZ);
  }

  /**
   * Whether nothing solid stands between two tiles (the tiles themselves aside), along the line of tiles
   * Bresenham's algorithm draws between them: what a shot needs. Water does not block it. The line is
   * drawn both ways, since Bresenham's two directions can pass different tiles, so that two tiles see
   * each other or neither does.
   */
  hasClearLine(from: Tile, to: Tile): boolean {
    return this.clearAlong(from, to) && this.clearAlong(to, from);
  }

  /** A diagonal step between two solid tiles that touch at a corner is blocked: no shot slips through. */
  private clearAlong(from: Tile, to: Tile): boolean {
    const dx = Math.abs(to.x - from.x);
    const dz = Math.abs(to.z - from.z);
    const stepX = Math.sign(to.x - from.x);
    const stepZ = Math.sign(to.z - from.z);
    let error = dx - dz;
    let { x, z } = from;
    while (true) {
      const twice = 2 * error;
      const movesX = twice > -dz;
      const movesZ = twice < dx;
      if (movesX && movesZ && this.isSolid(x + stepX, z) && this.isSolid(x, z + stepZ)) return false;
      if (movesX) {
        error -= dz;
        x += stepX;
      }
      if (movesZ) {
        error += dx;
        z += stepZ;
      }
      if (x === to.x && z === to.z) return true;
      if (this.isSolid(x, z)) return false;
    }
  }

  private isSolid(x: number, z: number): boolean {
    return this.solid.has(tileKey(x, z));
  }

  private index(x: number, z: number): number {
    return (x - this.minX) * this.depth + (z - this.minZ);
  }

  /**
   * Flood-fills 4-connected walkable tiles. Diagonal steps never cut corners, so every diagonal
   * step has a straight two-step detour: 4-connectivity is exactly what movement can reach.
   */
  private labelRegions(): void {
    const stack = new Int32Array(this.regions.length);
    let region = 0;
    for (let start = 0; start < this.regions.length; start++) {
      if (this.regions[start] !== -1) continue;
      region += 1;
      let top = 0;
      stack[top++] = start;
      this.regions[start] = region;
      while (top > 0) {
        const index = stack[--top]!;
        const dx = Math.floor(index / this.depth);
        const dz = index % this.depth;
        const neighbours = [
          dx > 0 ? index - this.depth : -1,
          dx < this.width - 1 ? index + this.depth : -1,
          dz > 0 ? index - 1 : -1,
          dz < this.depth - 1 ? index + 1 : -1,
        ];
        for (const next of neighbours) {
          if (next < 0 || this.regions[next] !== -1) continue;
          this.regions[next] = region;
          stack[top++] = next;
        }
      }
    }
  }
}

function solidTiles(areas: readonly AreaDef[], data: Pick<GameData, "buildings" | "resources">): Set<number> {
  const solid = new Set<number>();
  for (const area of areas) {
    for (const tile of area.blocked) solid.add(tileKey(tile.x, tile.z));
    for (const building of area.buildings) {
      for (const wall of buildingWalls(building, data.buildings.get(building.buildingId))) {
        solid.add(tileKey(wall.x, wall.z));
      }
    }
    for (const placement of area.resources) {
      if (data.resources.get(placement.resourceId)?.blocksMovement)
        solid.add(tileKey(placement.x, placement.z));
    }
  }
  return solid;
}

/** The tiles of a placed building's footprint that are not doors: its walls. */
export function buildingWalls(placed: Tile, building: BuildingDef | undefined): Tile[] {
  if (!building) return [];
  const doors = new Set(building.doors.map((door) => tileKey(door.x, door.z)));
  const walls: Tile[] = [];
  for (let dx = 0; dx < building.width; dx++) {
    for (let dz = 0; dz < building.depth; dz++) {
      if (!doors.has(tileKey(dx, dz))) walls.push({ x: placed.x + dx, z: placed.z + dz });
    }
  }
  return walls;
}
