import assert from "node:assert/strict";
import { rollDrops } from "../../src/game/drops.js";
import { seededRandom } from "../../src/game/random.js";
import type { DropEntry } from "../../src/game/types.js";
import { sequence } from "./fixtures.js";

const BONES: DropEntry = { itemId: "bones", min: 1, max: 1, chance: 1 };
const COINS: DropEntry = { itemId: "coins", min: 5, max: 15, chance: 0.5 };

describe("rollDrops", () => {
  it("rolls each entry on its own chance, quantity uniform in min..max", () => {
    // bones: always, quantity 1; coins: 0.3 < 0.5 drops, 5 + floor(0.99 * 11) = 15
    assert.deepEqual(rollDrops([BONES, COINS], sequence(0.99, 0, 0.3, 0.99)), [
      { itemId: "bones", quantity: 1 },
      { itemId: "coins", quantity: 15 },
    ]);
    assert.deepEqual(rollDrops([BONES, COINS], sequence(0.5, 0, 0.5)), [{ itemId: "bones", quantity: 1 }]);
  });

  it("drops an entry about as often as its chance says, never outside its range", () => {
    const random = seededRandom(3);
    let drops = 0;
    for (let i = 0; i < 10_000; i++) {
      for (const { quantity } of rollDrops([COINS], random)) {
        drops++;
        assert.ok(quantity >= COINS.min && quantity <= COINS.max);
      }
    }
    assert.ok(Math.abs(drops / 10_000 - COINS.chance) < 0.02);
  });
});
