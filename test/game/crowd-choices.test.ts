import assert from "node:assert/strict";
import fc from "fast-check";
import {
  CROWD_BLOCK_TILES,
  CROWD_NEAREST_SLACK_TILES,
  type CrowdChoice,
  CrowdChoices,
  choiceDiff,
  crowdBlockOf,
  ViewerChoices,
} from "../../src/game/crowd-choices.js";
import { TileGrid } from "../../src/game/nearest-players.js";
import { chebyshev } from "../../src/game/tile.js";
import { blockBounds } from "../../src/game/view-index.js";

interface Player {
  id: string;
  x: number;
  z: number;
  mark: number;
  touched: number;
  gone: boolean;
}

function gridOf(players: readonly Player[]): TileGrid<Player> {
  const grid = new TileGrid<Player>();
  for (const player of players) grid.add(player, player.x, player.z);
  return grid;
}

const idsOf = (players: readonly Player[]) => players.map(({ id }) => id).sort();

/** In view of `viewer`: within its view cell's block of cells. */
function inView(viewer: Player, player: Player): boolean {
  const { minX, maxX, minZ, maxZ } = blockBounds(viewer);
  return player.x >= minX && player.x <= maxX && player.z >= minZ && player.z <= maxZ;
}

describe("CrowdChoices: one choice of players for the clients of a block of tiles", () => {
  it("gives every tile of a block the same choice, made once a tick, the block's own players first", () => {
    const players = [
      { id: "a", x: 10, z: 10, mark: 0, touched: 0, gone: false },
      { id: "b", x: 14, z: 14, mark: 0, touched: 0, gone: false },
      { id: "near", x: 15, z: 12, mark: 0, touched: 0, gone: false },
      { id: "far", x: 19, z: 12, mark: 0, touched: 0, gone: false },
    ];
    const choices = new CrowdChoices(gridOf(players), 3);
    const fromA = choices.choose({ x: 10, z: 10 }, 1);
    assert.equal(choices.choose({ x: 14, z: 14 }, 1), fromA);
    assert.deepEqual(
      fromA.players
        .map(({ id }) => id)
        .slice(0, 2)
        .sort(),
      ["a", "b"],
    );
    assert.deepEqual(idsOf(fromA.players), ["a", "b", "near"]);
    assert.equal(fromA.reach, 1, "its farthest chosen player stands a tile from the block");
    assert.notEqual(choices.choose({ x: 10, z: 10 }, 2), fromA, "a new tick, a new choice");
  });

  it("keeps the players the block was shown the tick before by the margin", () => {
    const shown = { id: "shown", x: 19, z: 10, mark: 0, touched: 0, gone: false };
    const newcomer = { id: "newcomer", x: 10, z: 17, mark: 0, touched: 0, gone: false };
    const self = { id: "self", x: 10, z: 10, mark: 0, touched: 0, gone: false };
    const grid = gridOf([self, shown]);
    const choices = new CrowdChoices(grid, 2);
    assert.deepEqual(idsOf(choices.choose(self, 1).players), ["self", "shown"]);
    // 3 tiles from the block against the shown one's 5: not more than the margin nearer, it stays out.
    grid.add(newcomer, newcomer.x, newcomer.z);
    assert.deepEqual(idsOf(choices.choose(self, 2).players), ["self", "shown"]);
    // 2 tiles against 5: more than the margin nearer, it takes the place.
    grid.remove(newcomer, newcomer.x, newcomer.z);
    newcomer.z = 16;
    grid.add(newcomer, newcomer.x, newcomer.z);
    assert.deepEqual(idsOf(choices.choose(self, 3).players), ["newcomer", "self"]);
  });

  it("shows a client left out of a full choice all of it but the last player", () => {
    const players = Array.from({ length: 4 }, (_, i) => ({
      id: `p${i}`,
      x: 10,
      z: 10,
      mark: 0,
      touched: 0,
      gone: false,
    }));
    const choices = new CrowdChoices(gridOf(players), 3, 1);
    const choice = choices.choose({ x: 10, z: 10 }, 1);
    const left = players.find((player) => !choice.has(player))!;
    assert.equal(choice.shownTo(players.find((player) => choice.has(player))), choice);
    const shown = choice.shownTo(left);
    assert.deepEqual(shown.players, choice.players.slice(0, 2));
    assert.equal(choice.shownTo(left), shown, "made once");
  });

  it("tells who came, who changed and who went between two choices", () => {
    const a = { id: "a", x: 0, z: 0, mark: 0, touched: 0, gone: false };
    const b = { id: "b", x: 0, z: 0, mark: 0, touched: 0, gone: false };
    const c = { id: "c", x: 0, z: 0, mark: 0, touched: 0, gone: false };
    const cBack = { id: "c", x: 1, z: 0, mark: 0, touched: 0, gone: false };
    const d = { id: "d", x: 0, z: 0, mark: 0, touched: 0, gone: false };
    const choice = (players: Player[]) => new CrowdChoices(gridOf(players), 10).choose({ x: 0, z: 0 }, 1);
    const before = choice([a, b, c]);
    c.gone = true; // c left the world, and came back as a new entry
    const diff = choiceDiff(before, choice([a, b, cBack, d]), (player) => player === a);
    assert.deepEqual(idsOf(diff.added), ["d"]);
    assert.deepEqual(idsOf(diff.updated), ["a", "c"], "c came back as a new entry: an update");
    assert.deepEqual(diff.removed, []);
    const gone = choiceDiff(choice([a, b]), choice([a]), () => false);
    assert.deepEqual(gone, { added: [], updated: [], removed: ["b"] });
  });

  it("shows each client at most the cap, and never leaves out a player more than the slack nearer", () => {
    const tile = fc.record({ x: fc.integer({ min: 0, max: 39 }), z: fc.integer({ min: 0, max: 39 }) });
    fc.assert(
      fc.property(
        fc.array(tile, { minLength: 1, maxLength: 80 }),
        fc.array(tile, { maxLength: 10 }),
        fc.integer({ min: 1, max: 12 }),
        fc.nat(),
        (placed, moves, cap, pick) => {
          const players = placed.map((at, i) => ({ id: `p${i}`, ...at, mark: 0, touched: 0, gone: false }));
          const grid = gridOf(players);
          const choices = new ViewerChoices(grid, cap + 1);
          const self = players[pick % players.length]!;
          const shownTo = (tick: number, before?: CrowdChoice<Player>) =>
            choices.choose(self, self, tick, before);
          const first = shownTo(1);
          // Some players move, and the next tick's choice is made from what was shown.
          for (const [i, to] of moves.entries()) {
            const mover = players[i % players.length]!;
            grid.remove(mover, mover.x, mover.z);
            Object.assign(mover, to, { touched: 2 });
            grid.add(mover, mover.x, mover.z);
          }
          const shown = shownTo(2, first);
          // Whether a player is among a choice's, told from its tile or not, moved since or not.
          for (const choice of [first, shown])
            for (const player of players)
              assert.equal(
                choice.has(player),
                choice.players.includes(player),
                `${player.id} in tick ${choice.tick}`,
              );
          const others = shown.players.filter((player) => player !== self);
          assert.ok(others.length <= cap, `${others.length} others shown, over ${cap}`);
          const inSight = players.filter((player) => player !== self && inView(self, player));
          if (inSight.length <= cap) {
            assert.equal(others.length, inSight.length, "below the cap, everyone in view");
            return;
          }
          assert.equal(others.length, cap, "as many as the cap");
          const farthest = Math.max(...others.map((player) => chebyshev(self, player)));
          for (const player of inSight.filter((player) => !shown.has(player)))
            assert.ok(
              chebyshev(self, player) >= farthest - CROWD_NEAREST_SLACK_TILES,
              `${player.id} is ${chebyshev(self, player)} away, one shown ${farthest}`,
            );
        },
      ),
      { numRuns: 400 },
    );
  });

  it("cuts blocks that lie inside one view cell", () => {
    const block = crowdBlockOf({ x: -1, z: 7 });
    assert.deepEqual(block, {
      minX: -CROWD_BLOCK_TILES,
      maxX: -1,
      minZ: 5,
      maxZ: 4 + CROWD_BLOCK_TILES,
    });
    assert.throws(() => new CrowdChoices(new TileGrid<Player>(), 3, 3), /inside one view cell/);
  });
});
