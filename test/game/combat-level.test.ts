import assert from "node:assert/strict";
import { combatLevel, npcCombatLevel, skillLevels, totalLevel } from "../../src/game/combat-level.js";
import { FRESH_LEVELS as FRESH, GOBLIN, skillsAt } from "./fixtures.js";

describe("combatLevel", () => {
  it("is 3 for a fresh character", () => {
    // 0.25 * (1 + 10 + 0) + 0.325 * (1 + 1) = 3.4
    assert.equal(combatLevel(FRESH), 3);
  });

  it("is 126 with every combat skill at 99", () => {
    // 0.25 * (99 + 99 + 49) + 0.325 * 198 = 126.1
    assert.equal(combatLevel(skillLevels(skillsAt(99))), 126);
  });

  it("counts melee, ranged or magic, whichever is best", () => {
    // 0.25 * (40 + 45 + 21) = 26.5; melee 0.325 * (60 + 50) = 35.75 → 62
    const melee = { ...FRESH, attack: 60, strength: 50, defence: 40, constitution: 45, prayer: 43 };
    assert.equal(combatLevel(melee), 62);
    // ranged 70: 0.325 * floor(105) = 34.125; with the same base 26.5 → 60
    const ranged = { ...melee, attack: 1, strength: 1, ranged: 70 };
    assert.equal(combatLevel(ranged), 60);
    // magic 80: 0.325 * 120 = 39 → 65
    assert.equal(combatLevel({ ...ranged, magic: 80 }), 65);
  });
});

describe("npcCombatLevel", () => {
  it("applies the players' formula to a monster's stats, without the floor of 3", () => {
    // 0.25 * (1 + 5) + 0.325 * (1 + 1) = 2.15
    assert.equal(npcCombatLevel(GOBLIN.combat!), 2);
    // 0.25 * (1 + 3) + 0.325 * 2 = 1.65
    assert.equal(npcCombatLevel({ ...GOBLIN.combat!, constitution: 3 }), 1);
    // attack 8, strength 7, defence 8, hitpoints 16: 0.25 * 24 + 0.325 * 15 = 10.875
    const dwarf = { ...GOBLIN.combat!, attack: 8, strength: 7, defence: 8, constitution: 16 };
    assert.equal(npcCombatLevel(dwarf), 10);
    // ranged 30 beats melee 2: 0.25 * 6 + 0.325 * 45 = 16.125
    assert.equal(npcCombatLevel({ ...GOBLIN.combat!, ranged: 30 }), 16);
  });
});

describe("totalLevel", () => {
  it("sums every skill", () => {
    assert.equal(totalLevel(skillLevels(skillsAt(1, { constitution: 10 }))), 12 + 10);
  });
});
