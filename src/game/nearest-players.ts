// A crowd's cap: a viewer is shown at most the nearest N other players of its view, as RuneScape's
// protocol caps its local players at 255, so that what a client is sent stops growing with the crowd.
// The nearest are found by searching outward from the viewer's tile, ring by ring, through the players
// kept by tile: in a crowd the N nearest lie a few rings out, whatever the crowd's size.
import { tileKey } from "./tile.js";
import type { Tile } from "./types.js";

/** RuneScape's cap on the players a client is sent. */
export const DEFAULT_VIEW_MAX_PLAYERS = 255;

/**
 * Tiles by which a shown player counts as nearer than it is: a newcomer displaces it only by being more
 * than this much nearer, so two players crossing at the edge of the cap (a run is 2 tiles a tick) do not
 * swap in and out every tick.
 */
export const SHOWN_PLAYER_BONUS_TILES = 2;

/** Side of a TileGrid's chunks, in tiles: a power of two. */
const CHUNK_BITS = 4;
const CHUNK_SIDE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIDE - 1;

/** A chunk of a TileGrid: each tile's entities, and how many tiles hold any. */
interface TileChunk<E> {
  readonly tiles: (E[] | undefined)[];
  occupied: number;
}

/**
 * Entities kept by the tile they stand on, in square chunks of tiles: a search over an area looks up
 * one chunk per CHUNK_SIDE by CHUNK_SIDE tiles rather than every tile (a crowd's nearest players walk
 * tens of thousands of tiles a tick).
 */
export class TileGrid<E> {
  private readonly chunks = new Map<number, TileChunk<E>>();

  add(entity: E, x: number, z: number): void {
    const key = chunkKey(x, z);
    let chunk = this.chunks.get(key);
    if (!chunk) {
      chunk = { tiles: new Array<E[] | undefined>(CHUNK_SIDE * CHUNK_SIDE).fill(undefined), occupied: 0 };
      this.chunks.set(key, chunk);
    }
    const at = slot(x, z);
    const list = chunk.tiles[at];
    if (list) {
      list.push(entity);
    } else {
      chunk.tiles[at] = [entity];
      chunk.occupied++;
    }
  }

  remove(entity: E, x: number, z: number): void {
    const key = chunkKey(x, z);
    const chunk = this.chunks.get(key);
    const at = slot(x, z);
    const list = chunk?.tiles[at];
    if (!chunk || !list) return;
    const index = list.indexOf(entity);
    if (index < 0) return;
    list[index] = list[list.length - 1]!;
    list.pop();
    if (list.length > 0) return;
    chunk.tiles[at] = undefined;
    if (--chunk.occupied === 0) this.chunks.delete(key);
  }

  /** Visits the entities standing in the tiles from (minX, minZ) to (maxX, maxZ), chunk by chunk. */
  visit(minX: number, maxX: number, minZ: number, maxZ: number, visit: (entity: E) => void): void {
    for (let chunkZ = minZ >> CHUNK_BITS; chunkZ <= maxZ >> CHUNK_BITS; chunkZ++) {
      const fromZ = Math.max(minZ, chunkZ << CHUNK_BITS);
      const toZ = Math.min(maxZ, (chunkZ << CHUNK_BITS) | CHUNK_MASK);
      for (let chunkX = minX >> CHUNK_BITS; chunkX <= maxX >> CHUNK_BITS; chunkX++) {
        const tiles = this.chunks.get(tileKey(chunkX, chunkZ))?.tiles;
        if (!tiles) continue;
        const fromX = Math.max(minX, chunkX << CHUNK_BITS);
        const toX = Math.min(maxX, (chunkX << CHUNK_BITS) | CHUNK_MASK);
        for (let z = fromZ; z <= toZ; z++) {
          for (let x = fromX; x <= toX; x++) {
            const list = tiles[slot(x, z)];
            if (list) for (let i = 0; i < list.length; i++) visit(list[i]!);
          }
        }
      }
    }
  }
}

function chunkKey(x: number, z: number): number {
  return tileKey(x >> CHUNK_BITS, z >> CHUNK_BITS);
}

/** A tile's place in its chunk. */
function slot(x: number, z: number): number {
  return ((z & CHUNK_MASK) << CHUNK_BITS) | (x & CHUNK_MASK);
}

/** A rectangle of tiles, its bounds included. */
export interface TileBounds {
  minX: number;
  maxX: number;
  minZ: number;
  maxZ: number;
}

/** The one tile `tile`, as bounds: what a single viewer searches outward from. */
export function tileBounds(tile: Tile): TileBounds {
  return { minX: tile.x, maxX: tile.x, minZ: tile.z, maxZ: tile.z };
}

/** Chebyshev distance from a tile to the nearest tile of `area` (0 inside it). */
export function distanceTo(area: TileBounds, x: number, z: number): number {
  const dx = Math.max(area.minX - x, x - area.maxX, 0);
  const dz = Math.max(area.minZ - z, z - area.maxZ, 0);
  return Math.max(dx, dz);
}

type Identified = { readonly id: string };

const notShown = () => false;

/**
 * The state of one selection (see nearestPlayers), kept between calls with its callbacks made once: one
 * runs for every crowded block every tick, and callbacks made anew at each call would lose their
 * optimized code at every full collection.
 */
class NearestSearch {
  /** Bucket 0 holds `around`'s own players; bucket b > 0 those standing b - bonus - 1 (see nearestPlayers). */
  readonly buckets: Identified[][] = [];
  ring = 0;
  self: unknown = undefined;
  shown: (entity: Identified) => boolean = notShown;
  /** Files a visited player in its bucket: made once, handed to TileGrid.visit. */
  readonly rank = (entity: Identified): void => {
    if (entity === this.self) return;
    const ring = this.ring;
    this.buckets[ring === 0 ? 0 : (this.shown(entity) ? ring : ring + SHOWN_PLAYER_BONUS_TILES) + 1]!.push(
      entity,
    );
  };
  /** At equal standing, the shown one first, then the lower id. */
  readonly byStanding = (a: Identified, c: Identified): number =>
    Number(this.shown(c)) - Number(this.shown(a)) || (a.id < c.id ? -1 : a.id > c.id ? 1 : 0);

  /** Empties buckets 0 to `last`, making those missing. */
  clear(last: number): void {
    for (let b = 0; b <= last; b++) {
      const bucket = this.buckets[b];
      if (bucket) bucket.length = 0;
      else this.buckets[b] = [];
    }
  }

  /** Visits the part within `bounds` of a ring's side. */
  visitSide<E>(
    grid: TileGrid<E>,
    bounds: TileBounds,
    fromX: number,
    toX: number,
    fromZ: number,
    toZ: number,
  ): void {
    const x0 = Math.max(fromX, bounds.minX);
    const x1 = Math.min(toX, bounds.maxX);
    const z0 = Math.max(fromZ, bounds.minZ);
    const z1 = Math.min(toZ, bounds.maxZ);
    if (x0 <= x1 && z0 <= z1) grid.visit(x0, x1, z0, z1, this.rank as (entity: E) => void);
  }
}

const search = new NearestSearch();

/**
 * The at most `limit` players of `grid` nearest to `around` (a viewer's tile, or the block of tiles whose
 * viewers share one choice), by Chebyshev distance, within `bounds` (their view), `self` left out. Those
 * standing in `around` itself come first; beyond it, a player `shown` already counts
 * SHOWN_PLAYER_BONUS_TILES nearer. At equal standing the shown one goes first, then the lower id: the
 * choice depends only on positions and what was shown.
 */
export function nearestPlayers<E extends { readonly id: string }>(
  grid: TileGrid<E>,
  around: TileBounds,
  bounds: TileBounds,
  limit: number,
  shown: (entity: E) => boolean,
  self?: E,
): E[] {
  const bonus = SHOWN_PLAYER_BONUS_TILES;
  const { minX, maxX, minZ, maxZ } = bounds;
  const reach = Math.max(around.minX - minX, maxX - around.maxX, around.minZ - minZ, maxZ - around.maxZ);
  // A shown player at distance d stands at d - bonus, another at d.
  const lastBucket = reach + bonus + 1;
  search.clear(lastBucket);
  search.self = self;
  search.shown = shown as (entity: Identified) => boolean;
  const buckets = search.buckets as E[][];
  // Once ring r is searched, buckets up to r + 1 are complete: whoever would join them stands within r tiles.
  let settled = 0;
  let searched = -1;
  for (let ring = 0; ring <= reach && settled < limit; ring++) {
    search.ring = ring;
    if (ring === 0) {
      search.visitSide(grid, bounds, around.minX, around.maxX, around.minZ, around.maxZ);
      settled += buckets[0]!.length;
    } else {
      const left = around.minX - ring;
      const right = around.maxX + ring;
      const top = around.minZ - ring;
      const bottom = around.maxZ + ring;
      search.visitSide(grid, bounds, left, right, top, top);
      search.visitSide(grid, bounds, left, right, bottom, bottom);
      search.visitSide(grid, bounds, left, left, top + 1, bottom - 1);
      search.visitSide(grid, bounds, right, right, top + 1, bottom - 1);
      settled += buckets[ring + 1]!.length;
    }
    searched = ring;
  }
  // The whole view searched: the buckets past the last ring are complete too.
  const last = settled < limit ? lastBucket : searched + 1;
  const nearest: E[] = [];
  for (let b = 0; b <= last && nearest.length < limit; b++) {
    const bucket = buckets[b]!;
    if (nearest.length + bucket.length <= limit) {
      for (const entity of bucket) nearest.push(entity);
      continue;
    }
    bucket.sort(search.byStanding);
    for (let i = 0; nearest.length < limit; i++) nearest.push(bucket[i]!);
  }
  // Nothing of this selection is held past it.
  search.self = undefined;
  search.shown = notShown;
  return nearest;
}
