import assert from "node:assert/strict";
import { gainXp, levelForXp, MAX_LEVEL, XP_CAP, xpForLevel } from "../../src/game/xp.js";

describe("xp table", () => {
  it("matches RuneScape's published thresholds", () => {
    assert.equal(xpForLevel(1), 0);
    assert.equal(xpForLevel(2), 83);
    assert.equal(xpForLevel(3), 174);
    assert.equal(xpForLevel(MAX_LEVEL), 13_034_431);
  });

  it("matches the published table in the middle and near the top, where rounding errors would pile up", () => {
    // Hitpoints start at level 10; 50 and 92 are the table's landmarks (92 is half of 99's XP).
    assert.equal(xpForLevel(10), 1_154);
    assert.equal(xpForLevel(50), 101_333);
    assert.equal(xpForLevel(92), 6_517_253);
    assert.equal(xpForLevel(98), 11_805_606);
  });

  it("rejects levels outside 1..99", () => {
    assert.throws(() => xpForLevel(0), RangeError);
    assert.throws(() => xpForLevel(100), RangeError);
    assert.throws(() => xpForLevel(2.5), RangeError);
  });

  it("gives the level whose threshold was reached, at and around each boundary", () => {
    assert.equal(levelForXp(0), 1);
    assert.equal(levelForXp(82), 1);
    assert.equal(levelForXp(83), 2);
    assert.equal(levelForXp(173), 2);
    assert.equal(levelForXp(174), 3);
    assert.equal(levelForXp(13_034_430), 98);
    assert.equal(levelForXp(13_034_431), 99);
    assert.equal(levelForXp(XP_CAP), 99);
  });

  it("round-trips every level", () => {
    for (let level = 1; level <= MAX_LEVEL; level++) assert.equal(levelForXp(xpForLevel(level)), level);
  });
});

describe("gainXp", () => {
  it("reports the levels gained", () => {
    assert.deepEqual(gainXp({ level: 1, xp: 0 }, 174), { skill: { level: 3, xp: 174 }, levelsGained: 2 });
  });

  it("sums tenths exactly: a level is reached when the gains add up to its threshold", () => {
    // Controlled-style hits: 1 damage gives 1.3 XP, 2 damage 2.7. Summed as binary fractions, 41 of the
    // first and 11 of the second come to 82.99999999999999, short of level 2's 83.
    let skill = { level: 1, xp: 0 };
    for (let i = 0; i < 41; i++) skill = gainXp(skill, 1.3).skill;
    for (let i = 0; i < 11; i++) skill = gainXp(skill, 2.7).skill;
    assert.deepEqual(skill, { level: 2, xp: 83 });
  });

  it("caps XP at 200 million", () => {
    const { skill, levelsGained } = gainXp({ level: 99, xp: XP_CAP - 10 }, 1_000);
    assert.deepEqual(skill, { level: 99, xp: XP_CAP });
    assert.equal(levelsGained, 0);
  });

  it("ignores negative amounts, and amounts that are no number", () => {
    for (const amount of [-50, Number.NaN, Number.POSITIVE_INFINITY])
      assert.deepEqual(gainXp({ level: 2, xp: 100 }, amount), {
        skill: { level: 2, xp: 100 },
        levelsGained: 0,
      });
  });
});
