import assert from "node:assert/strict";
import { skillLevels } from "../../src/game/combat-level.js";
import { attemptGather, bestTool, gatherChance } from "../../src/game/gathering.js";
import { seededRandom } from "../../src/game/random.js";
import type { GatheringDef, SkillName, ToolDef } from "../../src/game/types.js";
import { sequence, skillsAt } from "./fixtures.js";

const TREE: GatheringDef = {
  resourceId: "tree",
  skill: "woodcutting",
  levelRequired: 1,
  toolKind: "axe",
  itemId: "logs",
  xp: 25,
  low: 64,
  high: 200,
  depleteChance: 0.125,
  respawnTicks: 60,
};

const AXES: ToolDef[] = [
  { itemId: "bronze_axe", kind: "axe", skill: "woodcutting", tier: 1, levelRequired: 1 },
  { itemId: "iron_axe", kind: "axe", skill: "woodcutting", tier: 2, levelRequired: 1 },
  { itemId: "rune_axe", kind: "axe", skill: "woodcutting", tier: 6, levelRequired: 41 },
];
const TOOLS = new Map<string, ToolDef>([
  ...AXES.map((tool) => [tool.itemId, tool] as const),
  [
    "bronze_pickaxe",
    { itemId: "bronze_pickaxe", kind: "pickaxe", skill: "mining", tier: 1, levelRequired: 1 },
  ],
]);

function levels(woodcutting: number): Record<SkillName, number> {
  return skillLevels(skillsAt(1, { woodcutting }));
}

describe("gatherChance", () => {
  it("follows the chance-out-of-256 curve at hand-computed points", () => {
    // level 1, tier 1: 1 + floor(64 + 0.5) = 65
    assert.equal(gatherChance(TREE, 1, 1), 65 / 256);
    // level 50, tier 1: 1 + floor(64 * 49 / 98 + 200 * 49 / 98 + 0.5) = 1 + floor(132.5) = 133
    assert.equal(gatherChance(TREE, 50, 1), 133 / 256);
    // level 30, tier 2 (96/300): 1 + floor(96 * 69 / 98 + 300 * 29 / 98 + 0.5) = 1 + floor(156.87) = 157
    assert.equal(gatherChance(TREE, 30, 2), 157 / 256);
  });

  it("rises with level and with tool tier", () => {
    for (let level = 2; level <= 99; level++) {
      assert.ok(gatherChance(TREE, level, 1) >= gatherChance(TREE, level - 1, 1));
    }
    assert.ok(gatherChance(TREE, 1, 99) > gatherChance(TREE, 99, 1));
    for (let tier = 2; tier <= 6; tier++)
      assert.ok(gatherChance(TREE, 5, tier) > gatherChance(TREE, 5, tier - 1));
  });

  it("is certain once the curve reaches 256, and never beyond", () => {
    // level 99, tier 6 (224/700): 1 + floor(700 + 0.5) = 701, out of 256
    assert.equal(gatherChance(TREE, 99, 6), 1);
    assert.equal(attemptGather(TREE, 99, 6, sequence(0.9999, 0.5)).success, true);
    // level 99, tier 1: 1 + floor(200 + 0.5) = 201
    assert.equal(gatherChance(TREE, 99, 1), 201 / 256);
  });
});

describe("bestTool", () => {
  it("picks the highest tier the player may use", () => {
    const carried = ["logs", "bronze_axe", "rune_axe", "iron_axe", "bronze_pickaxe"];
    assert.equal(bestTool(carried, "woodcutting", "axe", levels(41), TOOLS)?.itemId, "rune_axe");
    assert.equal(bestTool(carried, "woodcutting", "axe", levels(40), TOOLS)?.itemId, "iron_axe");
  });

  it("finds nothing without a tool of that kind", () => {
    assert.equal(bestTool(["logs", "bronze_pickaxe"], "woodcutting", "axe", levels(99), TOOLS), undefined);
  });
});

describe("attemptGather", () => {
  it("depletes only on a success", () => {
    assert.deepEqual(attemptGather(TREE, 1, 1, sequence(0.25, 0.1)), { success: true, depleted: true });
    assert.deepEqual(attemptGather(TREE, 1, 1, sequence(0.25, 0.2)), { success: true, depleted: false });
    assert.deepEqual(attemptGather(TREE, 1, 1, sequence(0.26)), { success: false, depleted: false });
  });

  it("depletes a resource on about depleteChance of its successes", () => {
    const random = seededRandom(7);
    let successes = 0;
    let depletions = 0;
    for (let i = 0; i < 20_000; i++) {
      const { success, depleted } = attemptGather(TREE, 50, 1, random);
      if (success) successes++;
      if (depleted) depletions++;
    }
    assert.ok(Math.abs(successes / 20_000 - 133 / 256) < 0.015);
    assert.ok(Math.abs(depletions / successes - TREE.depleteChance) < 0.015);
  });
});
