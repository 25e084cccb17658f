import assert from "node:assert/strict";
import { burnChance, cook } from "../../src/game/cooking.js";
import type { CookingRecipe } from "../../src/game/types.js";
import { sequence } from "./fixtures.js";

const SHRIMP: CookingRecipe = {
  rawItemId: "raw_shrimp",
  cookedItemId: "shrimp",
  burntItemId: "burnt_shrimp",
  levelRequired: 1,
  xp: 30,
  stopBurnLevel: 21,
};

describe("burnChance", () => {
  it("falls linearly from the base at the requirement to 0 at the stop-burn level", () => {
    assert.equal(burnChance(SHRIMP, 1, "fire"), 0.5);
    assert.equal(burnChance(SHRIMP, 11, "fire"), 0.25);
    assert.equal(burnChance(SHRIMP, 21, "fire"), 0);
    assert.equal(burnChance(SHRIMP, 60, "fire"), 0);
  });

  it("is lower on a range", () => {
    assert.equal(burnChance(SHRIMP, 1, "range"), 0.4);
    assert.equal(burnChance(SHRIMP, 11, "range"), 0.2);
  });

  it("never burns food whose stop-burn level is its requirement", () => {
    assert.equal(burnChance({ ...SHRIMP, stopBurnLevel: 1 }, 1, "fire"), 0);
  });
});

describe("cook", () => {
  it("gives the cooked item and its XP, or the burnt item and no XP", () => {
    assert.deepEqual(cook(SHRIMP, 11, "fire", sequence(0.25)), { itemId: "shrimp", xp: 30, burnt: false });
    assert.deepEqual(cook(SHRIMP, 11, "fire", sequence(0.24)), {
      itemId: "burnt_shrimp",
      xp: 0,
      burnt: true,
    });
  });
});
