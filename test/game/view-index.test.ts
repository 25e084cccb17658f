import assert from "node:assert/strict";
import fc from "fast-check";
import type { Tile } from "../../src/game/types.js";
import {
  blockAround,
  cellOf,
  MIN_VIEW_TILES,
  NO_CELL,
  type Placement,
  sees,
  VIEW_CELL_TILES,
  VIEW_RADIUS_CELLS,
  type ViewDiff,
  ViewIndex,
} from "../../src/game/view-index.js";

/** A little world for the index: entity id → where it is (and whose it is while owner-only). */
class Fixture {
  readonly placements = new Map<string, Placement>();
  readonly index = new ViewIndex();
  private tick = 0;

  constructor(initial: Record<string, Tile> = {}) {
    for (const [id, position] of Object.entries(initial)) this.placements.set(id, { position });
    this.index.advance(0, new Set(this.placements.keys()), [], (id) => this.placements.get(id));
  }

  /** One tick in which `changes` move, appear (a placement) or leave (undefined). */
  step(changes: Record<string, Placement | undefined>): void {
    const changed: string[] = [];
    const removed: string[] = [];
    for (const [id, placement] of Object.entries(changes)) {
      if (placement) {
        this.placements.set(id, placement);
        changed.push(id);
      } else {
        this.placements.delete(id);
        removed.push(id);
      }
    }
    this.index.advance(++this.tick, new Set(changed), removed, (id) => this.placements.get(id));
  }
}

const ids = (diff: ViewDiff) => ({
  added: diff.added.map((entity) => entity.id).sort(),
  updated: diff.updated.map((entity) => entity.id).sort(),
  removed: [...diff.removed].sort(),
});

const at = (x: number, z: number): Placement => ({ position: { x, z } });

describe("view cells", () => {
  it("show at least MIN_VIEW_TILES in every direction, and nothing a block away", () => {
    for (const viewer of [
      { x: 40, z: 40 },
      { x: 47, z: 47 },
      { x: 0, z: 0 },
    ]) {
      const cell = cellOf(viewer);
      for (const [dx, dz] of [
        [MIN_VIEW_TILES, 0],
        [-MIN_VIEW_TILES, 0],
        [0, MIN_VIEW_TILES],
        [0, -MIN_VIEW_TILES],
        [MIN_VIEW_TILES, -MIN_VIEW_TILES],
      ]) {
        assert.ok(
          sees(cell, cellOf({ x: viewer.x + dx!, z: viewer.z + dz! })),
          `${dx},${dz} from ${viewer.x}`,
        );
      }
      const farthest = VIEW_CELL_TILES * (VIEW_RADIUS_CELLS + 1) * 2;
      assert.equal(sees(cell, cellOf({ x: viewer.x + farthest, z: viewer.z })), false);
    }
    assert.equal(blockAround(cellOf({ x: 5, z: 5 })).length, (2 * VIEW_RADIUS_CELLS + 1) ** 2);
    assert.equal(sees(NO_CELL, cellOf({ x: 0, z: 0 })), false);
  });
});

describe("ViewIndex", () => {
  const viewer = cellOf({ x: 40, z: 40 });

  it("shows a new viewer everything in its block, owner-only items aside", () => {
    const world = new Fixture({ near: { x: 45, z: 30 }, far: { x: 90, z: 40 } });
    world.step({ mine: { position: { x: 41, z: 41 }, ownerId: "me" } });
    assert.deepEqual(ids(world.index.diff(NO_CELL, viewer)), { added: ["near"], updated: [], removed: [] });
    assert.deepEqual(
      [...(world.index.privateOf("me") ?? [])].map((entity) => entity.id),
      ["mine"],
    );
  });

  it("tells a viewer that stayed what moved in view, came into view, left view, appeared or went", () => {
    const world = new Fixture({
      walker: { x: 41, z: 40 },
      leaver: { x: 50, z: 40 },
      comer: { x: 70, z: 40 },
      still: { x: 42, z: 42 },
      doomed: { x: 43, z: 43 },
    });
    world.step({
      walker: at(42, 40),
      leaver: at(70, 40),
      comer: at(55, 40),
      born: at(38, 38),
      doomed: undefined,
    });
    assert.deepEqual(ids(world.index.diff(viewer, viewer)), {
      added: ["born", "comer"],
      updated: ["walker"],
      removed: ["doomed", "leaver"],
    });
    world.step({});
    assert.deepEqual(ids(world.index.diff(viewer, viewer)), { added: [], updated: [], removed: [] });
  });

  it("tells a viewer that moved a cell what its new cells hold and what its old ones held", () => {
    const world = new Fixture({
      westmost: { x: 40 - MIN_VIEW_TILES, z: 40 },
      companion: { x: 41, z: 40 },
      eastern: { x: 40 + MIN_VIEW_TILES + VIEW_CELL_TILES, z: 40 },
    });
    const east = cellOf({ x: 40 + VIEW_CELL_TILES, z: 40 });
    world.step({ companion: at(41 + VIEW_CELL_TILES, 40) });
    assert.deepEqual(ids(world.index.diff(viewer, east)), {
      added: ["eastern"],
      updated: ["companion"],
      removed: ["westmost"],
    });
  });

  it("shows an owner-only item to everyone once it turns public", () => {
    const world = new Fixture();
    world.step({ loot: { position: { x: 40, z: 40 }, ownerId: "killer" } });
    assert.deepEqual(ids(world.index.diff(viewer, viewer)).added, []);
    world.step({ loot: at(40, 40) });
    assert.equal(world.index.privateOf("killer"), undefined, "nothing is kept for an owner of nothing");
    assert.deepEqual(ids(world.index.diff(viewer, viewer)).added, ["loot"]);
  });

  it("computes a difference once for every viewer that made the same move", () => {
    const world = new Fixture({ a: { x: 40, z: 40 } });
    world.step({ a: at(41, 40) });
    assert.equal(world.index.diff(viewer, viewer), world.index.diff(viewer, viewer));
  });

  it("keeps every viewer's picture exact, whatever moves, appears, leaves or is owner-only", () => {
    const tile = fc.record({ x: fc.integer({ min: 0, max: 79 }), z: fc.integer({ min: 0, max: 79 }) });
    const entityId = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h");
    // A quarter of the placements are owner-only: no viewer's picture holds them, their owner's list does.
    const placement = fc.record({
      position: tile,
      owned: fc.integer({ min: 0, max: 3 }).map((roll) => roll === 0),
    });
    const tickChanges = fc.array(fc.tuple(entityId, fc.option(placement, { freq: 4 })), { maxLength: 6 });
    const viewerTiles = fc.array(tile, { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(tickChanges, viewerTiles), { minLength: 1, maxLength: 12 }), (ticks) => {
        const world = new Fixture();
        // Each viewer: the cell it saw from last and the ids it holds.
        const viewers = [0, 1, 2].map(() => ({ cell: NO_CELL, known: new Set<string>() }));
        for (const [changes, tiles] of ticks) {
          const tickChanges = Object.fromEntries(
            changes.map(([id, where]) => [
              id,
              where ? { position: where.position, ownerId: where.owned ? "owner" : undefined } : undefined,
            ]),
          );
          const viewerCells = tiles.map((where) => cellOf(where));
          const before = viewerCells.map((cell) =>
            ids({ added: world.index.visibleFrom(cell), updated: [], removed: [] }),
          );
          world.step(tickChanges);
          viewerCells.forEach((cell, i) => {
            const saw = ids({ added: world.index.visibleBefore(cell), updated: [], removed: [] });
            assert.deepEqual(saw.added, before[i]!.added, "what a viewer saw after the previous tick");
          });
          const touched = Object.keys(tickChanges).filter((id) => tickChanges[id]);
          viewers.forEach((view, i) => {
            const cell = cellOf(tiles[i % tiles.length]!);
            const diff = world.index.diff(view.cell, cell);
            const updated = new Set(diff.updated.map((entity) => entity.id));
            for (const id of touched) {
              const now = world.placements.get(id)!;
              const stillSeen = now.ownerId === undefined && sees(cell, cellOf(now.position));
              if (view.known.has(id) && stillSeen) assert.ok(updated.has(id), `${id} changed, not updated`);
            }
            for (const { id } of diff.added) assert.ok(!view.known.has(id), `${id} added twice`);
            for (const { id } of diff.updated) assert.ok(view.known.has(id), `${id} updated, never added`);
            for (const id of diff.removed) assert.ok(view.known.has(id), `${id} removed, never added`);
            for (const { id } of diff.added) view.known.add(id);
            for (const id of diff.removed) view.known.delete(id);
            view.cell = cell;
            const exact = [...world.placements]
              .filter(([, placed]) => placed.ownerId === undefined && sees(cell, cellOf(placed.position)))
              .map(([id]) => id);
            assert.deepEqual([...view.known].sort(), exact.sort());
          });
          const owned = [...world.placements].filter(([, placed]) => placed.ownerId).map(([id]) => id);
          const listed = [...(world.index.privateOf("owner") ?? [])].map((entity) => entity.id);
          assert.deepEqual(listed.sort(), owned.sort());
        }
      }),
      { numRuns: 300 },
    );
  });
});
