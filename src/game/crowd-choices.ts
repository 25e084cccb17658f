// A crowd's shared choice of players: the nearest players a crowded client is shown are chosen once for
// every client standing in the same small block of tiles, not once per client, so that a crowd of
// thousands makes one choice, one difference and one encoded update per occupied block (see
// docs/architecture.md). A block lies inside one view cell, so its clients share their view's bounds too.
import {
  distanceTo,
  nearestPlayers,
  SHOWN_PLAYER_BONUS_TILES,
  type TileBounds,
  type TileGrid,
} from "./nearest-players.js";
import { tileKey } from "./tile.js";
import type { Tile } from "./types.js";
import { blockBounds, VIEW_CELL_TILES } from "./view-index.js";

/** Side of a block of tiles whose crowded clients share one choice of players; it divides a view cell's side. */
export const CROWD_BLOCK_TILES = 5;

/**
 * Tiles by which a player a crowded client is not shown may be nearer to it than one it is shown: the
 * choice is made from its block, not its tile (up to CROWD_BLOCK_TILES - 1 off), and a shown player keeps
 * its place by SHOWN_PLAYER_BONUS_TILES.
 */
export const CROWD_NEAREST_SLACK_TILES = CROWD_BLOCK_TILES - 1 + SHOWN_PLAYER_BONUS_TILES;

/**
 * A player as the crowd's set operations over choices take it: `mark` is scratch for them (see `marked`),
 * since a crowded tick compares hundreds of pairs of choices of 256 players each.
 */
export interface Markable {
  readonly id: string;
  mark: number;
}

let lastMark = 0;

/**
 * Marks `entities` with a number no mark had before: until the next marking, `entity.mark === it` tells
 * one of them in a property read instead of a set lookup. Markings do not nest: each is used at once.
 */
function marked(entities: readonly Markable[]): number {
  const mark = ++lastMark;
  for (const entity of entities) entity.mark = mark;
  return mark;
}

/** A player as a choice holds it: where it stands, and the last tick it changed (see TrackedEntity). */
export interface Choosable extends Markable {
  readonly x: number;
  readonly z: number;
  readonly touched: number;
  readonly gone: boolean;
}

/** The players chosen for one block in one tick: shared, so never changed once made. */
export class CrowdChoice<E extends Choosable> {
  /** The same choice without its last player (see `shownTo`), once asked for. */
  private withoutLast: CrowdChoice<E> | undefined = undefined;
  /** Its players as a set, made only for a player `has` cannot tell from where it stands. */
  private members: Set<E> | undefined = undefined;

  constructor(
    readonly tick: number,
    /** The block of tiles whose clients share it. */
    readonly block: TileBounds,
    /**
     * How far from the block its farthest chosen player stands, when the choice had to leave players
     * out; Infinity when it shows every player in view. What happens beyond is not the block's to hear of.
     */
    readonly reach: number,
    /** The players, those standing in the block first (so every client there, unless the block alone overflows it). */
    readonly players: readonly E[],
    /** At most how many players it holds: the cap on the others a client sees, and the client itself. */
    private readonly limit: number,
  ) {}

  /**
   * Whether `player` is among its players. Those standing in the block come first, so when the choice
   * reaches past the block it holds all of them: a player unchanged since the choice's tick and standing
   * there is told from its tile, as every client of the block asks of its own player every tick.
   */
  has(player: E): boolean {
    if (
      this.reach > 0 &&
      player.touched <= this.tick &&
      !player.gone &&
      distanceTo(this.block, player.x, player.z) === 0
    )
      return true;
    this.members ??= new Set(this.players);
    return this.members.has(player);
  }

  /**
   * What a client of the block is shown of it: all of it, when it is among the players or the choice
   * is not full; otherwise all but its last player, as the client itself is shown too.
   */
  shownTo(self: E | undefined): CrowdChoice<E> {
    if ((self && this.has(self)) || this.players.length < this.limit) return this;
    // The last player is the farthest: it stands beyond the block when any does, so `reach` holds.
    this.withoutLast ??= new CrowdChoice(
      this.tick,
      this.block,
      this.reach,
      this.players.slice(0, this.limit - 1),
      this.limit,
    );
    return this.withoutLast;
  }
}

/** What a client that was shown `before` must be told to be shown `now`: players only. */
export interface ChoiceDiff<E> {
  added: E[];
  updated: E[];
  removed: string[];
}

/** The block of `side` tiles a tile is in. */
export function crowdBlockOf(tile: Tile, side = CROWD_BLOCK_TILES): TileBounds {
  const minX = Math.floor(tile.x / side) * side;
  const minZ = Math.floor(tile.z / side) * side;
  return { minX, maxX: minX + side - 1, minZ, maxZ: minZ + side - 1 };
}

function blockKey(tile: Tile, side: number): number {
  return tileKey(Math.floor(tile.x / side), Math.floor(tile.z / side));
}

/**
 * Each block's choice of the `limit` players nearest to it (see nearestPlayers), made at most once a tick.
 * A block's players in view are all ranked from the block, so the clients standing in it share the choice;
 * the players it chose the tick before keep their places by the margin, as one client's would.
 */
export class CrowdChoices<E extends Choosable> {
  /** Each block's latest choice: this tick's, or the last one it was asked for. */
  private readonly latest = new Map<number, CrowdChoice<E>>();
  /** The mark of the players shown before the choice being made (see `marked`). */
  private shownMark = Number.NaN;
  /** Made once: a callback made anew at each choice would lose its optimized code at full collections. */
  private readonly shown = (entity: E) => entity.mark === this.shownMark;

  constructor(
    private readonly grid: TileGrid<E>,
    private readonly limit: number,
    /** The side of its blocks, in tiles: it divides a view cell's. */
    private readonly side = CROWD_BLOCK_TILES,
  ) {
    if (VIEW_CELL_TILES % side !== 0) throw new Error("a crowd block must lie inside one view cell");
  }

  /**
   * The choice for the block holding `tile` in `tick`. Made from the block's choice of the tick before,
   * if it had one; otherwise `inherited` (what the first client to arrive there was shown the tick
   * before) is what was shown, so a lone client walking from block to block keeps its players by the margin.
   */
  choose(tile: Tile, tick: number, inherited?: CrowdChoice<E>): CrowdChoice<E> {
    const key = blockKey(tile, this.side);
    const last = this.latest.get(key);
    if (last?.tick === tick) return last;
    const shownBefore = last?.tick === tick - 1 ? last : inherited?.tick === tick - 1 ? inherited : undefined;
    this.shownMark = shownBefore ? marked(shownBefore.players) : Number.NaN;
    const block = crowdBlockOf(tile, this.side);
    const players = nearestPlayers(this.grid, block, blockBounds(tile), this.limit, this.shown);
    let reach = Number.POSITIVE_INFINITY;
    if (players.length === this.limit) {
      reach = 0;
      for (const player of players) reach = Math.max(reach, distanceTo(block, player.x, player.z));
    }
    const choice = new CrowdChoice(tick, block, reach, players, this.limit);
    this.latest.set(key, choice);
    return choice;
  }

  /** Forgets the choices of blocks nobody stood in since before the tick before `tick`. */
  forgetBefore(tick: number): void {
    for (const [key, choice] of this.latest) if (choice.tick < tick - 1) this.latest.delete(key);
  }
}

/**
 * The players crowded clients are shown: each one's block's choice, or, in a block whose own players
 * overflow that choice, its tile's.
 */
export class ViewerChoices<E extends Choosable> {
  private readonly blocks: CrowdChoices<E>;
  private readonly tiles: CrowdChoices<E>;

  constructor(grid: TileGrid<E>, limit: number) {
    this.blocks = new CrowdChoices(grid, limit);
    this.tiles = new CrowdChoices(grid, limit, 1);
  }

  /** What the client of `self` standing at `position` is shown in `tick`, having been shown `before`. */
  choose(self: E | undefined, position: Tile, tick: number, before?: CrowdChoice<E>): CrowdChoice<E> {
    const inBlock = this.blocks.choose(position, tick, before);
    if (self && inBlock.has(self)) return inBlock;
    return this.tiles.choose(position, tick, before).shownTo(self);
  }

  forgetBefore(tick: number): void {
    this.blocks.forgetBefore(tick);
    this.tiles.forgetBefore(tick);
  }
}

/**
 * From one choice to another: who is new, who left (by id), and who stayed and changed in the tick. A
 * player that left the world and came back as a new entry under the same id is an update, not both.
 */
export function choiceDiff<E extends Choosable>(
  before: CrowdChoice<E>,
  now: CrowdChoice<E>,
  touched: (entity: E) => boolean,
): ChoiceDiff<E> {
  const diff: ChoiceDiff<E> = { added: [], updated: [], removed: [] };
  const wasShown = marked(before.players);
  for (const entity of now.players) {
    if (entity.mark !== wasShown) diff.added.push(entity);
    else if (touched(entity)) diff.updated.push(entity);
  }
  const isShown = marked(now.players);
  // Only an entry that left the world can have come back as another under its id: mostly none has.
  let left: Set<string> | undefined;
  for (const entity of before.players) {
    if (entity.mark === isShown) continue;
    diff.removed.push(entity.id);
    if (!entity.gone) continue;
    left ??= new Set();
    left.add(entity.id);
  }
  if (left && diff.added.length > 0) {
    const back = diff.added.filter((entity) => left.has(entity.id));
    if (back.length > 0) {
      const ids = new Set(back.map((entity) => entity.id));
      diff.added = diff.added.filter((entity) => !ids.has(entity.id));
      diff.removed = diff.removed.filter((id) => !ids.has(id));
      for (const entity of back) diff.updated.push(entity);
    }
  }
  return diff;
}
