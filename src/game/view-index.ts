// What each player is sent: the world is cut into square view cells, and a player sees the block of
// cells around the one it stands in. Every player in a cell shares one view, so a tick's view
// differences are computed once per cell (and per cell-to-cell move), not once per player; and
// everything a tick changed in a block is found through the few cells it touched, not by
// re-scanning the block for every viewer.
import { type TileBounds, TileGrid } from "./nearest-players.js";
import type { Tile } from "./types.js";

/** Side of a view cell, in tiles. */
export const VIEW_CELL_TILES = 10;
/** Cells seen on each side of the viewer's cell: a view reaches 10 to 19 tiles in every direction (14.5 on average). */
export const VIEW_RADIUS_CELLS = 1;
/** The fewest tiles a player sees in any direction (the view is never smaller than this). */
export const MIN_VIEW_TILES = VIEW_CELL_TILES * VIEW_RADIUS_CELLS;

/** A view cell, packed into one number; NO_CELL stands for "nowhere" (not in the world, or unseen). */
export type Cell = number;
export const NO_CELL: Cell = -1;

const CELL_OFFSET = 1 << 12;
const CELL_BITS = 13;
const CELL_SPAN = 1 << CELL_BITS;
const CELL_MASK = CELL_SPAN - 1;

export function cellOf(tile: Tile): Cell {
  const cx = Math.floor(tile.x / VIEW_CELL_TILES) + CELL_OFFSET;
  const cz = Math.floor(tile.z / VIEW_CELL_TILES) + CELL_OFFSET;
  return cx * CELL_SPAN + cz;
}

/** Whether a viewer standing in cell `viewer` sees cell `cell`. */
export function sees(viewer: Cell, cell: Cell): boolean {
  return withinCells(viewer, cell, VIEW_RADIUS_CELLS);
}

function withinCells(a: Cell, b: Cell, radius: number): boolean {
  if (a === NO_CELL || b === NO_CELL) return false;
  // A cell is two non-negative 13-bit coordinates: shifts and masks read them without division.
  const dx = (a >> CELL_BITS) - (b >> CELL_BITS);
  const dz = (a & CELL_MASK) - (b & CELL_MASK);
  return dx <= radius && dx >= -radius && dz <= radius && dz >= -radius;
}

const blocks = new Map<Cell, readonly Cell[]>();

/** Whether a player standing on `viewer` is sent what stands on `tile`. */
export function inViewFrom(viewer: Tile, tile: Tile): boolean {
  return sees(cellOf(viewer), cellOf(tile));
}

/**
 * Whether a player standing on `viewer` may name what stands on `tile`: what its view holds, or held a
 * few ticks ago. A client acts on the last update it was sent, and by the time its click arrives the
 * player (running two tiles a tick) or the target may have crossed into another cell; one cell more
 * on every side keeps those clicks good, and the world beyond still unnamed.
 */
export function nameableFrom(viewer: Tile, tile: Tile): boolean {
  return withinCells(cellOf(viewer), cellOf(tile), VIEW_RADIUS_CELLS + 1);
}

/** The tiles a viewer standing on `viewer` sees: those of the block of cells around its own. */
export function blockBounds(viewer: Tile): TileBounds {
  const reach = VIEW_RADIUS_CELLS * VIEW_CELL_TILES;
  const minX = Math.floor(viewer.x / VIEW_CELL_TILES) * VIEW_CELL_TILES - reach;
  const minZ = Math.floor(viewer.z / VIEW_CELL_TILES) * VIEW_CELL_TILES - reach;
  const side = (2 * VIEW_RADIUS_CELLS + 1) * VIEW_CELL_TILES;
  return { minX, maxX: minX + side - 1, minZ, maxZ: minZ + side - 1 };
}

/** The cells a viewer standing in `viewer` sees (none for NO_CELL), kept: views ask for them every tick. */
export function blockAround(viewer: Cell): readonly Cell[] {
  if (viewer === NO_CELL) return [];
  let block = blocks.get(viewer);
  if (!block) {
    const cells: Cell[] = [];
    for (let dx = -VIEW_RADIUS_CELLS; dx <= VIEW_RADIUS_CELLS; dx++) {
      for (let dz = -VIEW_RADIUS_CELLS; dz <= VIEW_RADIUS_CELLS; dz++)
        cells.push(viewer + dx * CELL_SPAN + dz);
    }
    block = cells;
    blocks.set(viewer, block);
  }
  return block;
}

/**
 * Where an entity is and who may see it: everyone, or (an owner-only ground item) its owner alone; and
 * what the index's user keeps with it until it next changes (the room: its JSON).
 */
export interface Placement<Payload = undefined> {
  position: Tile;
  ownerId?: string;
  /** A player: counted against a viewer's cap on players, which shows it nearest first (see crowd-choices.ts). */
  capped?: boolean;
  payload?: Payload;
}

/** One entity as the index follows it. */
export interface TrackedEntity<Payload = undefined> {
  readonly id: string;
  /** What its last placement carried. */
  payload: Payload | undefined;
  /** Its cell now, whoever may see it. */
  at: Cell;
  /** Its tile now. */
  x: number;
  z: number;
  /** Whether it counts against a viewer's cap on players. */
  capped: boolean;
  /** Set while only this player may see it. */
  ownerId?: string;
  /** Whether it has left the world. */
  gone: boolean;
  /** The last tick it appeared, changed or left. */
  touched: number;
  /** Its public cell before the tick that last touched it. */
  before: Cell;
  /** Scratch for the crowd's set operations over players (see Markable in crowd-choices.ts). */
  mark: number;
}

const NOTHING: readonly never[] = [];

/** Its cell for everyone: NO_CELL while private or gone. */
function publicCell(entity: TrackedEntity<unknown>): Cell {
  return entity.gone || entity.ownerId !== undefined ? NO_CELL : entity.at;
}

/** What a viewer that stood in one cell last tick and stands in another now must be told. */
export interface ViewDiff<Payload = undefined> {
  added: TrackedEntity<Payload>[];
  updated: TrackedEntity<Payload>[];
  removed: string[];
}

/**
 * The entities of the world by view cell, and their movements over the last tick. `advance` takes a
 * tick's changes; `diff(from, to)` then gives what a viewer learns in that tick, the same object for
 * every viewer that made the same move. Owner-only entities are kept apart: `privateOf` lists them
 * for their owner, who alone is told of them.
 */
export class ViewIndex<Payload = undefined> {
  private tick = 0;
  private readonly entities = new Map<string, TrackedEntity<Payload>>();
  /** Publicly visible entities, by the cell they are in. */
  private readonly cells = new Map<Cell, Set<TrackedEntity<Payload>>>();
  /** This tick: public entities now in each cell that appeared, changed or arrived there. */
  private touchedIn = new Map<Cell, TrackedEntity<Payload>[]>();
  /** This tick: entities that were public in each cell last tick and no longer are there (moved, gone, hidden). */
  private departedFrom = new Map<Cell, TrackedEntity<Payload>[]>();
  private readonly privateByOwner = new Map<string, Set<TrackedEntity<Payload>>>();
  /** Public capped entities (players): how many in each cell, and by tile, to find the nearest. */
  private readonly cappedIn = new Map<Cell, number>();
  /** (Read, never changed, outside: crowds choose their players from it, see crowd-choices.ts.) */
  readonly cappedGrid = new TileGrid<TrackedEntity<Payload>>();
  private diffs = new Map<number, ViewDiff<Payload>>();

  get currentTick(): number {
    return this.tick;
  }

  /**
   * Takes one tick's changes: the ids of entities that appeared or changed, and of those that left the
   * world. `placement` gives where a changed entity is now (undefined if it is gone after all).
   */
  advance(
    tick: number,
    changed: ReadonlySet<string>,
    removed: Iterable<string>,
    placement: (id: string) => Placement<Payload> | undefined,
  ): void {
    this.tick = tick;
    this.touchedIn = new Map();
    this.departedFrom = new Map();
    this.diffs = new Map();
    for (const id of removed) if (!changed.has(id)) this.place(id, undefined);
    for (const id of changed) this.place(id, placement(id));
  }

  /** Drops this tick's memoized differences (they are made again if asked for). */
  forgetDiffs(): void {
    this.diffs = new Map();
  }

  entity(id: string): TrackedEntity<Payload> | undefined {
    return this.entities.get(id);
  }

  /** Owner-only entities of a player, wherever they are. */
  privateOf(ownerId: string): ReadonlySet<TrackedEntity<Payload>> | undefined {
    return this.privateByOwner.get(ownerId);
  }

  /** Whether the entity changed in the current tick. */
  touchedNow(entity: TrackedEntity<Payload>): boolean {
    return entity.touched === this.tick;
  }

  /** Every public entity a viewer in `viewer` sees now (`uncappedOnly`: leaving out the capped ones). */
  visibleFrom(viewer: Cell, uncappedOnly = false): TrackedEntity<Payload>[] {
    const visible: TrackedEntity<Payload>[] = [];
    for (const cell of blockAround(viewer))
      for (const entity of this.cells.get(cell) ?? [])
        if (!uncappedOnly || !entity.capped) visible.push(entity);
    return visible;
  }

  /** How many public capped entities (players) a viewer in `viewer` sees, before any cap. */
  cappedAround(viewer: Cell): number {
    let count = 0;
    for (const cell of blockAround(viewer)) count += this.cappedIn.get(cell) ?? 0;
    return count;
  }

  /**
   * Every public entity a viewer in `viewer` saw after the previous tick: what is in its block now and
   * was in it then, and what has left its block (moved away, gone, hidden) since (`uncappedOnly`: leaving
   * out the capped ones).
   */
  visibleBefore(viewer: Cell, uncappedOnly = false): TrackedEntity<Payload>[] {
    const seen: TrackedEntity<Payload>[] = [];
    for (const cell of blockAround(viewer)) {
      for (const entity of this.cells.get(cell) ?? []) {
        if (uncappedOnly && entity.capped) continue;
        if (sees(viewer, this.previousCell(entity))) seen.push(entity);
      }
      // Departed from a cell of the block, and now outside it (or nowhere public): seen there before.
      for (const entity of this.departedFrom.get(cell) ?? NOTHING) {
        if (uncappedOnly && entity.capped) continue;
        if (!sees(viewer, publicCell(entity))) seen.push(entity);
      }
    }
    return seen;
  }

  /**
   * What a viewer that saw the public entities of cell `from`'s block after the previous tick (NO_CELL:
   * nothing) must be told to see those of cell `to`'s block now; `uncappedOnly`, leaving out the capped
   * entities (a viewer whose players are chosen one by one). Memoized for the tick.
   */
  diff(from: Cell, to: Cell, uncappedOnly = false): ViewDiff<Payload> {
    const key = ((from + 1) * CELL_SPAN * CELL_SPAN + to) * 2 + (uncappedOnly ? 1 : 0);
    let diff = this.diffs.get(key);
    if (!diff) {
      diff = this.computeDiff(from, to, uncappedOnly);
      this.diffs.set(key, diff);
    }
    return diff;
  }

  // Plain loops, one kind of collection each, and no closures: this runs for every view cell every tick.
  private computeDiff(from: Cell, to: Cell, uncappedOnly: boolean): ViewDiff<Payload> {
    const diff: ViewDiff<Payload> = { added: [], updated: [], removed: [] };
    for (const cell of blockAround(to)) {
      // In a cell seen before, only what the tick touched can be news; a newly seen cell is news entirely.
      if (!sees(from, cell)) {
        const entities = this.cells.get(cell);
        if (entities)
          for (const entity of entities)
            if (!uncappedOnly || !entity.capped) this.addNews(diff, from, entity);
      } else {
        const touched = this.touchedIn.get(cell);
        if (touched) {
          for (let i = 0; i < touched.length; i++) {
            const entity = touched[i]!;
            if (!uncappedOnly || !entity.capped) this.addNews(diff, from, entity);
          }
        }
      }
    }
    for (const cell of blockAround(from)) {
      // What left a cell seen before is gone from view unless it went somewhere in view; what stayed in a
      // cell that is no longer seen (or arrived there from view) left the view with the cell.
      const departed = this.departedFrom.get(cell);
      if (departed) {
        for (let i = 0; i < departed.length; i++) {
          const entity = departed[i]!;
          if (uncappedOnly && entity.capped) continue;
          const now = publicCell(entity);
          if (!sees(to, now) && !sees(from, now)) diff.removed.push(entity.id);
        }
      }
      if (sees(to, cell)) continue;
      const entities = this.cells.get(cell);
      if (!entities) continue;
      for (const entity of entities) {
        if (uncappedOnly && entity.capped) continue;
        if (sees(from, this.previousCell(entity))) diff.removed.push(entity.id);
      }
    }
    return diff;
  }

  /** Lists `entity` in `diff` if it is news to a viewer that stood in `from`: new in view, or changed. */
  private addNews(diff: ViewDiff<Payload>, from: Cell, entity: TrackedEntity<Payload>): void {
    if (!sees(from, this.previousCell(entity))) diff.added.push(entity);
    else if (this.touchedNow(entity)) diff.updated.push(entity);
  }

  /** Its public cell after the previous tick. */
  private previousCell(entity: TrackedEntity<Payload>): Cell {
    return this.touchedNow(entity) ? entity.before : publicCell(entity);
  }

  private place(id: string, placement: Placement<Payload> | undefined): void {
    let entity = this.entities.get(id);
    if (!entity) {
      if (!placement) return;
      entity = {
        id,
        payload: undefined,
        at: NO_CELL,
        x: 0,
        z: 0,
        capped: false,
        gone: true,
        touched: -1,
        before: NO_CELL,
        mark: 0,
      };
      this.entities.set(id, entity);
    }
    if (!this.touchedNow(entity)) entity.before = publicCell(entity);
    entity.touched = this.tick;
    this.unlist(entity);
    if (placement) {
      entity.at = cellOf(placement.position);
      entity.x = placement.position.x;
      entity.z = placement.position.z;
      entity.capped = placement.capped === true;
      entity.ownerId = placement.ownerId;
      entity.payload = placement.payload;
      entity.gone = false;
    } else {
      entity.gone = true;
      this.entities.delete(id);
    }
    this.list(entity);
  }

  private unlist(entity: TrackedEntity<Payload>): void {
    const cell = publicCell(entity);
    if (cell !== NO_CELL) {
      this.cells.get(cell)?.delete(entity);
      if (entity.capped) {
        const left = (this.cappedIn.get(cell) ?? 1) - 1;
        if (left > 0) this.cappedIn.set(cell, left);
        else this.cappedIn.delete(cell);
        this.cappedGrid.remove(entity, entity.x, entity.z);
      }
    }
    if (entity.ownerId !== undefined) {
      const owned = this.privateByOwner.get(entity.ownerId);
      // Emptied, the owner's entry goes: every player who ever dropped or looted anything would keep one.
      if (owned?.delete(entity) && owned.size === 0) this.privateByOwner.delete(entity.ownerId);
    }
  }

  private list(entity: TrackedEntity<Payload>): void {
    const cell = publicCell(entity);
    if (cell !== NO_CELL) {
      setIn(this.cells, cell).add(entity);
      listIn(this.touchedIn, cell).push(entity);
      if (entity.capped) {
        this.cappedIn.set(cell, (this.cappedIn.get(cell) ?? 0) + 1);
        this.cappedGrid.add(entity, entity.x, entity.z);
      }
    } else if (!entity.gone && entity.ownerId !== undefined) {
      setIn(this.privateByOwner, entity.ownerId).add(entity);
    }
    // An entity is placed once a tick: its departure is from the cell it had before the tick.
    if (entity.before !== NO_CELL && entity.before !== cell)
      listIn(this.departedFrom, entity.before).push(entity);
  }
}

function setIn<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}

function listIn<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}
