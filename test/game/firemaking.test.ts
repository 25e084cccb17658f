import assert from "node:assert/strict";
import { attemptLight, lightChance } from "../../src/game/firemaking.js";
import type { FiremakingRecipe } from "../../src/game/types.js";
import { sequence } from "./fixtures.js";

const LOGS: FiremakingRecipe = { logItemId: "logs", levelRequired: 1, xp: 40, burnTicks: 100 };
const OAK: FiremakingRecipe = { logItemId: "oak_logs", levelRequired: 15, xp: 60, burnTicks: 120 };

describe("lightChance", () => {
  it("starts near one in four at the log's requirement", () => {
    // 1 + floor(64 + 0.5) = 65 out of 256
    assert.equal(lightChance(1, LOGS), 65 / 256);
    assert.equal(lightChance(15, OAK), 65 / 256);
  });

  it("rises with level until it is certain", () => {
    // level 11: 1 + floor(64 * 88 / 98 + 512 * 10 / 98 + 0.5) = 1 + floor(110.21) = 111
    assert.equal(lightChance(11, LOGS), 111 / 256);
    assert.ok(lightChance(30, LOGS) > lightChance(11, LOGS));
    assert.equal(lightChance(50, LOGS), 1);
  });
});

describe("attemptLight", () => {
  it("lights a fire lasting the log's burn time and gives XP on success", () => {
    assert.deepEqual(attemptLight(11, LOGS, sequence(0.4)), { lit: true, xp: 40, burnTicks: 100 });
  });

  it("fails without XP otherwise", () => {
    assert.deepEqual(attemptLight(11, LOGS, sequence(0.44)), { lit: false });
  });
});
