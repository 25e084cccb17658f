import type { WorldMap } from "./map.js";
import { NEIGHBOURS } from "./tile.js";
import type { Tile } from "./types.js";

/** The longest path the server walks, in steps: the contract's 200-tile movement limit. */
export const MAX_PATH_LENGTH = 200;

/** Min-heap of tile keys by priority; stale entries are skipped by the caller. */
class KeyHeap {
  private readonly keys: number[] = [];
  private readonly priorities: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  clear(): void {
    this.keys.length = 0;
    this.priorities.length = 0;
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
 * within `range` tiles (Chebyshev) of `to` on a walkable tile (one `accepts`, when given), `[]` when
 * already there, or undefined when no such path of at most `maxLength` steps exists.
 */
export function findPathNear(
  map: WorldMap,
  from: Tile,
  to: Tile,
  range: number,
  maxLength = MAX_PATH_LENGTH,
  accepts?: (x: number, z: number) => boolean,
): Tile[] | undefined {
  // Functions of the module rather than closures made at each call: a closure's optimized code is lost
  // once none of its instances is alive, at each of the room's full collections.
  if (arrived(to, range, accepts, from.x, from.z)) return [];
  if (stepsShort(to, range, from.x, from.z) > maxLength) return undefined;
  const direct = directPath(map, from, to, range);
  const end = direct?.at(-1) ?? from;
  if (direct && arrived(to, range, accepts, end.x, end.z)) return direct;
  if (!goalInRegion(map, from, to, range)) return undefined;

  // Every tile a search may reach lies within maxLength steps of the start, and inside the map: a long
  // trip's area is the map's size, not its length's (5,000 steps would make 100 million tiles).
  const area = searchArea(Math.min(maxLength, map.span));
  area.begin(from);
  const open = area.open;
  const start = area.indexOf(from.x, from.z);
  area.reach(start, 0, start);
  const fromShort = stepsShort(to, range, from.x, from.z);
  open.push(start, priority(fromShort, fromShort));

  while (open.size > 0) {
    const index = open.pop();
    if (area.isExpanded(index)) continue;
    area.expand(index);
    const x = area.xOf(index);
    const z = area.zOf(index);
    const g = area.costOf(index);
    if (arrived(to, range, accepts, x, z)) return area.pathTo(index);
    for (const [dx, dz] of NEIGHBOURS) {
      const nextX = x + dx;
      const nextZ = z + dz;
      const nextH = stepsShort(to, range, nextX, nextZ);
      if (g + 1 + nextH > maxLength || !map.canStepBetween(x, z, nextX, nextZ)) continue;
      const next = area.indexOf(nextX, nextZ);
      if (area.isReached(next) && area.costOf(next) <= g + 1) continue;
      area.reach(next, g + 1, index);
      open.push(next, priority(g + 1 + nextH, nextH));
    }
  }
  return undefined;
}

/** A tile's place in the open set: ties on f go to the tile nearer the goal, which keeps the search narrow and paths direct. */
function priority(f: number, h: number): number {
  return f * 1024 + h;
}

/** How many steps (x, z) is short of standing within `range` tiles of `to`. */
function stepsShort(to: Tile, range: number, x: number, z: number): number {
  return Math.max(0, Math.max(Math.abs(x - to.x), Math.abs(z - to.z)) - range);
}

/** Whether (x, z) is an end of the path: within `range` of `to`, and one `accepts` when given. */
function arrived(
  to: Tile,
  range: number,
  accepts: ((x: number, z: number) => boolean) | undefined,
  x: number,
  z: number,
): boolean {
  return stepsShort(to, range, x, z) === 0 && (accepts?.(x, z) ?? true);
}

/**
 * The path that steps diagonally toward `to` while both coordinates differ, then straight, until within
 * `range`; undefined when a step is blocked. Every step brings `to` one tile nearer (Chebyshev), so
 * when all are open it is a shortest path, found without a search: most walks in the open are.
 */
function directPath(map: WorldMap, from: Tile, to: Tile, range: number): Tile[] | undefined {
  const path: Tile[] = [];
  let { x, z } = from;
  while (Math.max(Math.abs(x - to.x), Math.abs(z - to.z)) > range) {
    const nextX = x + Math.sign(to.x - x);
    const nextZ = z + Math.sign(to.z - z);
    if (!map.canStepBetween(x, z, nextX, nextZ)) return undefined;
    x = nextX;
    z = nextZ;
    path.push({ x, z });
  }
  return path;
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

/**
 * The tiles within `radius` of a search's start, as flat arrays indexed by tile: what the search knows of
 * each (reached at what cost and from where, expanded) without a Map or Set per search. Searches run one
 * at a time, so one area per radius serves them all; a stamp per search tells this search's entries
 * from older ones.
 */
class SearchArea {
  readonly open = new KeyHeap();
  private readonly side: number;
  private readonly reachedIn: Uint32Array;
  private readonly expandedIn: Uint32Array;
  private readonly cost: Uint16Array;
  private readonly cameFrom: Int32Array;
  private search = 0;
  private originX = 0;
  private originZ = 0;

  constructor(radius: number) {
    this.side = 2 * radius + 1;
    const tiles = this.side * this.side;
    this.reachedIn = new Uint32Array(tiles);
    this.expandedIn = new Uint32Array(tiles);
    this.cost = new Uint16Array(tiles);
    this.cameFrom = new Int32Array(tiles);
  }

  begin(centre: Tile): void {
    if (this.search === 0xffffffff) {
      this.reachedIn.fill(0);
      this.expandedIn.fill(0);
      this.search = 0;
    }
    this.search++;
    const radius = (this.side - 1) / 2;
    this.originX = centre.x - radius;
    this.originZ = centre.z - radius;
    this.open.clear();
  }

  indexOf(x: number, z: number): number {
    return (x - this.originX) * this.side + (z - this.originZ);
  }

  xOf(index: number): number {
    return this.originX + Math.floor(index / this.side);
  }

  zOf(index: number): number {
    return this.originZ + (index % this.side);
  }

  isReached(index: number): boolean {
    return this.reachedIn[index] === this.search;
  }

  costOf(index: number): number {
    return this.cost[index]!;
  }

  reach(index: number, cost: number, from: number): void {
    this.reachedIn[index] = this.search;
    this.cost[index] = cost;
    this.cameFrom[index] = from;
  }

  isExpanded(index: number): boolean {
    return this.expandedIn[index] === this.search;
  }

  expand(index: number): void {
    this.expandedIn[index] = this.search;
  }

  /** The steps from the start (which came from itself) to `end`. */
  pathTo(end: number): Tile[] {
    const path: Tile[] = [];
    for (let index = end; this.cameFrom[index] !== index; index = this.cameFrom[index]!)
      path.push({ x: this.xOf(index), z: this.zOf(index) });
    return path.reverse();
  }
}

const searchAreas = new Map<number, SearchArea>();

function searchArea(radius: number): SearchArea {
  let area = searchAreas.get(radius);
  if (!area) {
    area = new SearchArea(radius);
    searchAreas.set(radius, area);
  }
  return area;
}
