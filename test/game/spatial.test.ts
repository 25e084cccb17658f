import assert from "node:assert/strict";
import { SpatialGrid } from "../../src/game/spatial.js";

describe("SpatialGrid", () => {
  const near = (
    grid: SpatialGrid<{ position: { x: number; z: number } }>,
    x: number,
    z: number,
    radius: number,
  ) => {
    const found: unknown[] = [];
    grid.forEachWithin({ x, z }, radius, (item) => found.push(item));
    return found;
  };

  it("finds items within a Chebyshev radius across cell borders, and none beyond", () => {
    const grid = new SpatialGrid<{ position: { x: number; z: number } }>(16);
    const inside = { position: { x: 17, z: -3 } };
    const edge = { position: { x: 30, z: 15 } };
    const outside = { position: { x: 31, z: 0 } };
    for (const item of [inside, edge, outside]) grid.insert(item);
    assert.deepEqual(near(grid, 15, 0, 15), [inside, edge]);
  });

  it("follows an item that moves, and forgets one that is removed", () => {
    const grid = new SpatialGrid<{ position: { x: number; z: number } }>(16);
    const walker = { position: { x: 0, z: 0 } };
    grid.insert(walker);
    walker.position.x = 100;
    grid.update(walker);
    assert.deepEqual(near(grid, 0, 0, 15), []);
    assert.deepEqual(near(grid, 100, 0, 0), [walker]);
    grid.remove(walker);
    assert.deepEqual(near(grid, 100, 0, 0), []);
    assert.equal(grid.size, 0);
  });
});
