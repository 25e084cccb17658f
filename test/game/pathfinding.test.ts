import assert from "node:assert/strict";
import { WorldMap } from "../../src/game/map.js";
import { findPath, findPathNear } from "../../src/game/pathfinding.js";
import type { Tile } from "../../src/game/types.js";
import { ENCLOSED, gameData } from "./world-fixture.js";

function mapWith(blocked: Tile[] = []): WorldMap {
  const data = gameData();
  const [area] = data.areas;
  return new WorldMap([{ ...area!, blocked: [...area!.blocked, ...blocked] }], data);
}

function isAdjacent(a: Tile, b: Tile): boolean {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.z - b.z)) === 1;
}

describe("map walkability", () => {
  const map = mapWith();

  it("blocks water, blocking resources, blocked tiles, building walls and everything outside the areas", () => {
    assert.equal(map.isWalkable(22, 3), false, "water");
    assert.equal(map.isWalkable(14, 10), false, "tree");
    assert.equal(map.isWalkable(48, 48), false, "ring wall");
    assert.equal(map.isWalkable(40, 40), false, "house wall");
    assert.equal(map.isWalkable(-1, 5), false, "outside every area");
    assert.equal(map.isWalkable(10, 10), true);
  });

  it("sees along a line of tiles past water, but not through walls, blocked tiles, trees or rocks", () => {
    const wall = mapWith([{ x: 5, z: 13 }]);
    assert.equal(wall.hasClearLine({ x: 5, z: 10 }, { x: 5, z: 16 }), false, "blocked tile");
    assert.equal(wall.hasClearLine({ x: 5, z: 16 }, { x: 5, z: 10 }), false, "either way");
    assert.equal(wall.hasClearLine({ x: 6, z: 10 }, { x: 6, z: 16 }), true, "beside it");
    assert.equal(wall.hasClearLine({ x: 5, z: 12 }, { x: 5, z: 13 }), true, "the tiles themselves aside");
    assert.equal(map.hasClearLine({ x: 11, z: 10 }, { x: 17, z: 10 }), false, "the tree at (14,10)");
    assert.equal(map.hasClearLine({ x: 18, z: 3 }, { x: 26, z: 3 }), true, "over the water x 20..25");
    assert.equal(map.hasClearLine({ x: 38, z: 41 }, { x: 44, z: 41 }), false, "through the house");
  });

  it("lets no shot slip diagonally between two solid tiles that touch at a corner", () => {
    const corner = mapWith([
      { x: 6, z: 10 },
      { x: 5, z: 11 },
    ]);
    // The diagonal line (3,8)..(8,13) passes from (5,10) to (6,11), between the two.
    assert.equal(mapWith().hasClearLine({ x: 3, z: 8 }, { x: 8, z: 13 }), true, "clear without them");
    assert.equal(corner.hasClearLine({ x: 3, z: 8 }, { x: 8, z: 13 }), false);
    assert.equal(corner.hasClearLine({ x: 8, z: 13 }, { x: 3, z: 8 }), false, "either way");
  });

  it("gives the same answer both ways where the two directions' lines pass different tiles", () => {
    // From (6,10) the line to (8,11) passes (7,10); from (8,11) back, it passes (7,11).
    const map = mapWith([{ x: 7, z: 11 }]);
    assert.equal(map.hasClearLine({ x: 6, z: 10 }, { x: 8, z: 11 }), false);
    assert.equal(map.hasClearLine({ x: 8, z: 11 }, { x: 6, z: 10 }), false);
    assert.equal(
      mapWith([{ x: 7, z: 12 }]).hasClearLine({ x: 6, z: 10 }, { x: 8, z: 11 }),
      true,
      "a tile off both lines",
    );
  });

  it("keeps a building's door walkable", () => {
    assert.equal(map.isWalkable(41, 40), true);
  });

  it("knows which area a tile belongs to", () => {
    assert.equal(map.areaAt(5, 5)?.id, "meadow");
    assert.equal(map.areaAt(100, 5), undefined);
  });
});

describe("findPath", () => {
  it("walks straight and diagonally, one tile per step", () => {
    const path = findPath(mapWith(), { x: 0, z: 0 }, { x: 5, z: 3 })!;
    assert.equal(path.length, 5);
    assert.deepEqual(path.at(-1), { x: 5, z: 3 });
    let previous = { x: 0, z: 0 };
    for (const step of path) {
      assert.ok(isAdjacent(previous, step));
      previous = step;
    }
  });

  it("goes around a wall", () => {
    const wall = [0, 1, 2, 3, 4, 5, 6].map((z) => ({ x: 5, z }));
    const map = mapWith(wall);
    const path = findPath(map, { x: 3, z: 3 }, { x: 7, z: 3 })!;
    assert.ok(path, "a path exists around the end of the wall");
    assert.ok(path.every((tile) => map.isWalkable(tile.x, tile.z)));
    assert.ok(
      path.some((tile) => tile.z >= 7),
      "it passes beyond the wall's end",
    );
    assert.deepEqual(path.at(-1), { x: 7, z: 3 });
  });

  it("walks diagonally first, then straight, where that way is open", () => {
    assert.deepEqual(findPath(mapWith(), { x: 2, z: 2 }, { x: 4, z: 6 }), [
      { x: 3, z: 3 },
      { x: 4, z: 4 },
      { x: 4, z: 5 },
      { x: 4, z: 6 },
    ]);
    assert.deepEqual(findPathNear(mapWith(), { x: 2, z: 2 }, { x: 8, z: 2 }, 2), [
      { x: 3, z: 2 },
      { x: 4, z: 2 },
      { x: 5, z: 2 },
      { x: 6, z: 2 },
    ]);
  });

  it("goes around what blocks the direct way, as short as the way around allows", () => {
    // (4,4) blocked: the diagonal walk from (2,2) meets it; one step aside costs nothing more.
    const path = findPath(mapWith([{ x: 4, z: 4 }]), { x: 2, z: 2 }, { x: 4, z: 6 })!;
    assert.equal(path.length, 4);
    assert.ok(!path.some((tile) => tile.x === 4 && tile.z === 4));
    assert.deepEqual(path.at(-1), { x: 4, z: 6 });
  });

  it("never cuts a corner past a blocked tile", () => {
    // (1,0) blocked: the diagonal (0,0)->(1,1) would squeeze past its corner.
    const map = mapWith([{ x: 1, z: 0 }]);
    const path = findPath(map, { x: 0, z: 0 }, { x: 1, z: 1 })!;
    assert.deepEqual(path, [
      { x: 0, z: 1 },
      { x: 1, z: 1 },
    ]);
  });

  it("finds no path into a walled enclosure", () => {
    assert.equal(findPath(mapWith(), { x: 40, z: 50 }, ENCLOSED), undefined);
  });

  it("finds no path onto an unwalkable tile", () => {
    assert.equal(findPath(mapWith(), { x: 10, z: 10 }, { x: 14, z: 10 }), undefined);
  });

  it("refuses paths longer than the cap", () => {
    assert.equal(findPath(mapWith(), { x: 0, z: 30 }, { x: 21, z: 30 }, 20), undefined);
    assert.equal(findPath(mapWith(), { x: 0, z: 30 }, { x: 20, z: 30 }, 20)?.length, 20);
  });

  it("stops within reach of an unwalkable target", () => {
    const path = findPathNear(mapWith(), { x: 10, z: 10 }, { x: 14, z: 10 }, 1)!;
    assert.deepEqual(path.at(-1), { x: 13, z: 10 });
  });

  it("returns an empty path when already there", () => {
    assert.deepEqual(findPath(mapWith(), { x: 3, z: 3 }, { x: 3, z: 3 }), []);
  });

  it("searches a long trip's cap within the map's size, not the cap's", () => {
    // A wall across the straight way makes it a search; capped at 5,000 steps, as an agent's trips are.
    const wall = Array.from({ length: 21 }, (_, i) => ({ x: 20, z: 20 + i }));
    const before = process.memoryUsage().arrayBuffers;
    const path = findPathNear(mapWith(wall), { x: 10, z: 30 }, { x: 30, z: 30 }, 0, 5000);
    const grownMb = (process.memoryUsage().arrayBuffers - before) / 2 ** 20;
    assert.deepEqual(path?.at(-1), { x: 30, z: 30 });
    // An area 5,000 tiles each way would be 100 million tiles: 1.3 GB of search arrays, kept for reuse.
    assert.ok(grownMb < 16, `the search took ${grownMb.toFixed(0)} MB`);
  });
});
