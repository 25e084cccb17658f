import assert from "node:assert/strict";
import fc from "fast-check";
import {
  distanceTo,
  nearestPlayers,
  SHOWN_PLAYER_BONUS_TILES,
  type TileBounds,
  TileGrid,
  tileBounds,
} from "../../src/game/nearest-players.js";

interface Player {
  id: string;
  x: number;
  z: number;
  shown?: boolean;
}

const BOUNDS: TileBounds = { minX: 0, maxX: 29, minZ: 0, maxZ: 29 };

function gridOf(players: readonly Player[]): TileGrid<Player> {
  const grid = new TileGrid<Player>();
  for (const player of players) grid.add(player, player.x, player.z);
  return grid;
}

const idsOf = (players: readonly Player[]) => players.map(({ id }) => id).sort();
const nothingShown = () => false;

describe("nearestPlayers", () => {
  it("chooses the nearest, ties by id, and leaves out the viewer and what is out of bounds", () => {
    const viewer = { x: 10, z: 10 };
    const self = { id: "self", ...viewer };
    const players = [
      self,
      { id: "a", x: 11, z: 10 },
      { id: "d", x: 13, z: 13 },
      { id: "c", x: 7, z: 10 },
      { id: "b", x: 10, z: 7 },
      { id: "far", x: 40, z: 10 },
    ];
    const grid = gridOf(players);
    assert.deepEqual(idsOf(nearestPlayers(grid, tileBounds(viewer), BOUNDS, 2, nothingShown, self)), [
      "a",
      "b",
    ]);
    assert.deepEqual(idsOf(nearestPlayers(grid, tileBounds(viewer), BOUNDS, 10, nothingShown, self)), [
      "a",
      "b",
      "c",
      "d",
    ]);
  });

  it("keeps a shown player until a newcomer is more than the margin nearer", () => {
    const viewer = { x: 10, z: 10 };
    const shown = { id: "shown", x: 15, z: 10 };
    const grid = gridOf([shown, { id: "new", x: 10, z: 15 - SHOWN_PLAYER_BONUS_TILES }]);
    const isShown = (player: Player) => player === shown;
    assert.deepEqual(idsOf(nearestPlayers(grid, tileBounds(viewer), BOUNDS, 1, isShown)), ["shown"]);
    const nearer = gridOf([shown, { id: "new", x: 10, z: 14 - SHOWN_PLAYER_BONUS_TILES }]);
    assert.deepEqual(idsOf(nearestPlayers(nearer, tileBounds(viewer), BOUNDS, 1, isShown)), ["new"]);
  });

  it("puts the players standing in its block first, whatever was shown", () => {
    const block = { minX: 10, maxX: 11, minZ: 10, maxZ: 11 };
    const shown = { id: "shown", x: 12, z: 10 };
    const players = [shown, { id: "b", x: 11, z: 11 }, { id: "a", x: 10, z: 10 }];
    const isShown = (player: Player) => player === shown;
    assert.deepEqual(idsOf(nearestPlayers(gridOf(players), block, BOUNDS, 2, isShown)), ["a", "b"]);
  });

  it("agrees with sorting every player by standing, shown first, then id, from a tile or a block", () => {
    const tile = fc.record({ x: fc.integer({ min: -5, max: 34 }), z: fc.integer({ min: -5, max: 34 }) });
    const block = fc
      .record({
        x: fc.integer({ min: 0, max: 25 }),
        z: fc.integer({ min: 0, max: 25 }),
        side: fc.integer({ min: 1, max: 5 }),
      })
      .map(({ x, z, side }): TileBounds => ({ minX: x, maxX: x + side - 1, minZ: z, maxZ: z + side - 1 }));
    fc.assert(
      fc.property(
        fc.oneof(tile.map(tileBounds), block),
        fc.array(fc.tuple(tile, fc.boolean()), { maxLength: 60 }),
        fc.integer({ min: 0, max: 20 }),
        (around: TileBounds, placed, limit) => {
          const players = placed.map(([at, shown], i) => ({ id: `p${i}`, ...at, shown }));
          const inBounds = players.filter(
            ({ x, z }) => x >= BOUNDS.minX && x <= BOUNDS.maxX && z >= BOUNDS.minZ && z <= BOUNDS.maxZ,
          );
          // Those standing in the block come before everyone else.
          const standing = (player: (typeof players)[number]) => {
            const distance = distanceTo(around, player.x, player.z);
            if (distance === 0) return -SHOWN_PLAYER_BONUS_TILES - 1;
            return distance - (player.shown ? SHOWN_PLAYER_BONUS_TILES : 0);
          };
          const expected = inBounds
            .sort(
              (a, b) =>
                standing(a) - standing(b) ||
                Number(b.shown) - Number(a.shown) ||
                (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
            )
            .slice(0, limit);
          const grid = gridOf(players);
          const chosen = nearestPlayers(grid, around, BOUNDS, limit, (player) => player.shown === true);
          assert.deepEqual(idsOf(chosen), idsOf(expected));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("forgets a player removed from its tile and keeps the others, across chunks and negative tiles", () => {
    const players = [
      { id: "a", x: 3, z: 3 },
      { id: "b", x: 3, z: 3 },
      { id: "c", x: -1, z: -17 },
      { id: "d", x: 16, z: 0 },
    ];
    const grid = gridOf(players);
    const within = ({ minX, maxX, minZ, maxZ }: TileBounds) => {
      const seen: string[] = [];
      grid.visit(minX, maxX, minZ, maxZ, (player) => seen.push(player.id));
      return seen.sort();
    };
    assert.deepEqual(within({ minX: -20, maxX: 20, minZ: -20, maxZ: 20 }), ["a", "b", "c", "d"]);
    grid.remove(players[0]!, 3, 3);
    grid.remove(players[2]!, -1, -17);
    assert.deepEqual(within({ minX: 3, maxX: 3, minZ: 3, maxZ: 3 }), ["b"]);
    assert.deepEqual(within({ minX: -20, maxX: 20, minZ: -20, maxZ: 20 }), ["b", "d"]);
    assert.deepEqual(within({ minX: 4, maxX: 15, minZ: -20, maxZ: 20 }), []);
  });
});
