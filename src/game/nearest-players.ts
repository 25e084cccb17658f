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

/** Entities kept by the tile they stand on. */
export class TileGrid<E> {
  private readonly tiles = new Map<number, E[]>();

  add(entity: E, x: number, z: number): void {
    const key = tileKey(x, z);
    const list = this.tiles.get(key);
    if (list) list.push(entity);
    else this.tiles.set(key, [entity]);
  }

  remove(entity: E, x: number, z: number): void {
    const key = tileKey(x, z);
    const list = this.tiles.get(key);
    if (!list) return;
    const at = list.indexOf(entity);
    if (at < 0) return;
    list[at] = list[list.length - 1]!;
    list.pop();
    if (list.length === 0) this.tiles.delete(key);
  }

  at(x: number, z: number): readonly E[] | undefined {
    return this.tiles.get(tileKey(x, z));
  }
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

/** Reused between calls: a selection runs for every crowded block every tick. */
const buckets: { id: string }[][] = [];

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
  // Bucket 0 holds `around`'s own players; bucket b > 0 standing b - bonus - 1: a shown player at
  // distance d stands at d - bonus, another at d.
  const lastBucket = reach + bonus + 1;
  for (let b = 0; b <= lastBucket; b++) {
    if (buckets[b]) buckets[b]!.length = 0;
    else buckets[b] = [];
  }
  const visitRow = (z: number, fromX: number, toX: number, ring: number) => {
    if (z < minZ || z > maxZ) return;
    const last = Math.min(toX, maxX);
    for (let x = Math.max(fromX, minX); x <= last; x++) {
      const here = grid.at(x, z);
      if (!here) continue;
      for (const entity of here) {
        if (entity === self) continue;
        buckets[ring === 0 ? 0 : (shown(entity) ? ring : ring + bonus) + 1]!.push(entity);
      }
    }
  };
  // Once ring r is searched, buckets up to r + 1 are complete: whoever would join them stands within r tiles.
  let settled = 0;
  let searched = -1;
  for (let ring = 0; ring <= reach && settled < limit; ring++) {
    if (ring === 0) {
      for (let z = around.minZ; z <= around.maxZ; z++) visitRow(z, around.minX, around.maxX, 0);
      settled += buckets[0]!.length;
    } else {
      const left = around.minX - ring;
      const right = around.maxX + ring;
      visitRow(around.minZ - ring, left, right, ring);
      visitRow(around.maxZ + ring, left, right, ring);
      for (let z = around.minZ - ring + 1; z < around.maxZ + ring; z++) {
        visitRow(z, left, left, ring);
        visitRow(z, right, right, ring);
      }
      settled += buckets[ring + 1]!.length;
    }
    searched = ring;
  }
  // The whole view searched: the buckets past the last ring are complete too.
  const last = settled < limit ? lastBucket : searched + 1;
  const nearest: E[] = [];
  for (let b = 0; b <= last && nearest.length < limit; b++) {
    const bucket = buckets[b] as E[];
    if (nearest.length + bucket.length <= limit) {
      for (const entity of bucket) nearest.push(entity);
      continue;
    }
    bucket.sort((a, c) => Number(shown(c)) - Number(shown(a)) || (a.id < c.id ? -1 : a.id > c.id ? 1 : 0));
    for (let i = 0; nearest.length < limit; i++) nearest.push(bucket[i]!);
  }
  return nearest;
}
