import type { WorldMap } from "./map.js";
import { tileFromKey, tileKey } from "./tile.js";
import type { Tile } from "./types.js";

/** The longest path the server walks, in steps: the contract's 200-tile movement limit. */
export const MAX_PATH_LENGTH = 200;

const NEIGHBOURS: readonly (readonly [number, number])[] = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
  [1, 1],
  [1, -1],
  [-1, 1],
  [-1, -1],
];

/** Min-heap of tile keys by priority; stale entries are skipped by the caller. */
class KeyHeap {
  private readonly keys: number[] = [];
  private readonly priorities: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  push(key: number, priority: number): void {
    let index = this.keys.length;
    this.keys.push(key);
    this.priorities.push(priority);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.priorities[parent]! <= priority) break;
      this.keys[index] = this.keys[parent]!;
      this.priorities[index] = this.priorities[parent]!;
      index = parent;
    }
    this.keys[index] = key;
    this.priorities[index] = priority;
  }

  pop(): number {
    const top = this.keys[0]!;
    const lastKey = this.keys.pop()!;
    const lastPriority = this.priorities.pop()!;
    const size = this.keys.length;
    if (size === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && this.priorities[right]! < this.priorities[left]! ? right : left;
      if (this.priorities[child]! >= lastPriority) break;
      this.keys[index] = this.keys[child]!;
      this.priorities[index] = this.priorities[child]!;
      index = child;
    }
    this.keys[index] = lastKey;
    this.priorities[index] = lastPriority;
    return top;
  }
}

/**
 * A* over the 8-neighbour grid, because the game moves diagonally in one step (a diagonal costs
 * one tick like a straight step). A diagonal step is refused when either tile beside it is not
 * walkable, so paths never cut a corner past a wall. Returns the steps after `from` ending
 * within `range` tiles (Chebyshev) of `to` on a walkable tile, `[]` when already there, or
 * undefined when no such path of at most `maxLength` steps exists.
 */
export function findPathNear(
  map: WorldMap,
  from: Tile,
  to: Tile,
  range: number,
  maxLength = MAX_PATH_LENGTH,
): Tile[] | undefined {
  const remaining = (x: number, z: number) =>
    Math.max(0, Math.max(Math.abs(x - to.x), Math.abs(z - to.z)) - range);
  if (remaining(from.x, from.z) === 0) return [];
  if (remaining(from.x, from.z) > maxLength || !goalInRegion(map, from, to, range)) return undefined;

  const startKey = tileKey(from.x, from.z);
  const cost = new Map<number, number>([[startKey, 0]]);
  const cameFrom = new Map<number, number>();
  const expanded = new Set<number>();
  const open = new KeyHeap();
  // Ties on f go to the tile nearer the goal, which keeps the search narrow and paths direct.
  const priority = (f: number, h: number) => f * 1024 + h;
  open.push(startKey, priority(remaining(from.x, from.z), remaining(from.x, from.z)));

  while (open.size > 0) {
    const key = open.pop();
    if (expanded.has(key)) continue;
    expanded.add(key);
    const here = tileFromKey(key);
    const g = cost.get(key)!;
    const h = remaining(here.x, here.z);
    if (h === 0) return reconstruct(cameFrom, key, startKey);
    for (const [dx, dz] of NEIGHBOURS) {
      const next = { x: here.x + dx, z: here.z + dz };
      const nextH = remaining(next.x, next.z);
      if (g + 1 + nextH > maxLength || !map.canStep(here, next)) continue;
      const nextKey = tileKey(next.x, next.z);
      const known = cost.get(nextKey);
      if (known !== undefined && known <= g + 1) continue;
      cost.set(nextKey, g + 1);
      cameFrom.set(nextKey, key);
      open.push(nextKey, priority(g + 1 + nextH, nextH));
    }
  }
  return undefined;
}

/** A path to exactly `to` (see findPathNear). */
export function findPath(
  map: WorldMap,
  from: Tile,
  to: Tile,
  maxLength = MAX_PATH_LENGTH,
): Tile[] | undefined {
  return findPathNear(map, from, to, 0, maxLength);
}

/** Whether some walkable tile within `range` of `to` is connected to `from` at all. */
function goalInRegion(map: WorldMap, from: Tile, to: Tile, range: number): boolean {
  const region = map.regionAt(from.x, from.z);
  // A player stranded on an unwalkable tile (an old save) may still step off it: search anyway.
  if (region === 0) return true;
  for (let x = to.x - range; x <= to.x + range; x++) {
    for (let z = to.z - range; z <= to.z + range; z++) if (map.regionAt(x, z) === region) return true;
  }
  return false;
}

function reconstruct(cameFrom: Map<number, number>, endKey: number, startKey: number): Tile[] {
  const path: Tile[] = [];
  for (let key = endKey; key !== startKey; key = cameFrom.get(key)!) path.push(tileFromKey(key));
  return path.reverse();
}
