// A crowd's cap: a viewer is shown at most the nearest N other players of its view, as RuneScape's
// protocol caps its local players at 255, so that what a client is sent stops growing with the crowd.
// The nearest are found by searching outward from the viewer's tile, ring by ring, through the players
// kept by tile: in a crowd the N nearest lie a few rings out, whatever the crowd's size.
import type { Tile } from "./types.js";

/** RuneScape's cap on the players a client is sent. */
export const DEFAULT_VIEW_MAX_PLAYERS = 255;

/**
 * Tiles by which a shown player counts as nearer than it is: a newcomer displaces it only by being more
 * than this much nearer, so two players crossing at the edge of the cap (a run is 2 tiles a tick) do not
 * swap in and out every tick.
 */
export const SHOWN_PLAYER_BONUS_TILES = 2;

const TILE_OFFSET = 1 << 20;
const TILE_SPAN = 1 << 21;

function tileKey(x: number, z: number): number {
  return (x + TILE_OFFSET) * TILE_SPAN + (z + TILE_OFFSET);
}

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

/** Reused between calls: a selection runs for every crowded viewer every tick. */
const buckets: { id: string }[][] = [];

/**
 * The at most `limit` players of `grid` nearest to `viewer` (Chebyshev distance) within `bounds` (its
 * view), `self` left out. A player `shown` already counts SHOWN_PLAYER_BONUS_TILES nearer; at equal standing
 * the shown one goes first, then the lower id: the choice depends only on positions and what was shown.
 */
export function nearestPlayers<E extends { readonly id: string }>(
  grid: TileGrid<E>,
  viewer: Tile,
  bounds: TileBounds,
  limit: number,
  shown: (entity: E) => boolean,
  self?: E,
): E[] {
  const bonus = SHOWN_PLAYER_BONUS_TILES;
  const { minX, maxX, minZ, maxZ } = bounds;
  const reach = Math.max(viewer.x - minX, maxX - viewer.x, viewer.z - minZ, maxZ - viewer.z);
  // Bucket b holds standing b - bonus: a shown player at distance d stands at d - bonus, another at d.
  for (let b = 0; b <= reach + bonus; b++) {
    if (buckets[b]) buckets[b]!.length = 0;
    else buckets[b] = [];
  }
  const visit = (x: number, z: number, ring: number) => {
    if (x < minX || x > maxX || z < minZ || z > maxZ) return;
    const here = grid.at(x, z);
    if (!here) return;
    for (const entity of here) {
      if (entity !== self) buckets[shown(entity) ? ring : ring + bonus]!.push(entity);
    }
  };
  // Once ring r is searched, bucket r is complete: whoever would join it stands within r tiles.
  let settled = 0;
  let searched = -1;
  for (let ring = 0; ring <= reach && settled < limit; ring++) {
    if (ring === 0) visit(viewer.x, viewer.z, 0);
    for (let step = -ring; step < ring; step++) {
      visit(viewer.x + step, viewer.z - ring, ring);
      visit(viewer.x + ring, viewer.z + step, ring);
      visit(viewer.x - step, viewer.z + ring, ring);
      visit(viewer.x - ring, viewer.z - step, ring);
    }
    settled += buckets[ring]!.length;
    searched = ring;
  }
  // The whole block searched: the buckets past the last ring are complete too.
  const last = settled < limit ? reach + bonus : searched;
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
