import assert from "node:assert/strict";
import type { AgentView, Goal, SeenEntity, Step } from "../../src/agents/brain.js";
import { RulesTurn } from "../../src/agents/rules-turn.js";
import { WorldMap } from "../../src/game/map.js";
import { SKILLS, type Tile } from "../../src/game/types.js";
import { xpForLevel } from "../../src/game/xp.js";
import { gameData } from "../game/world-fixture.js";

const data = gameData();
const world = { data, map: new WorldMap(data.areas, data) };
const RANGE: SeenEntity = {
  id: "station:1",
  kind: "resource",
  type: "cooking_range",
  position: { x: 8, z: 10 },
};
const BESIDE_RANGE: Tile = { x: 9, z: 10 };
const combat: Goal = {
  id: "goal",
  type: "combat",
  description: "fight",
  target: 1_000_000,
  progress: 0,
  startedAt: new Date(0).toISOString(),
};

function view(position: Tile, rawSlots: number[]): AgentView {
  return {
    self: { id: "agent", position, health: 3, maxHealth: 10 },
    inventory: rawSlots.map((slot) => ({ slot, itemId: "raw_shrimps", quantity: 1 })),
    skills: Object.fromEntries(SKILLS.map((skill) => [skill, { xp: xpForLevel(1) }])) as AgentView["skills"],
    entities: [RANGE],
  };
}

function rulesTurn(): { rules: RulesTurn; sent: Step[] } {
  const sent: Step[] = [];
  const rules = new RulesTurn({
    name: "Cook",
    world,
    goalsPaused: () => false,
    target: () => undefined,
    // Its combat style, told to the world as its levels call for it, is beside the point here.
    send: (step) => {
      if (step.data.action !== "combat_style") sent.push(step);
    },
    chose: () => {},
    startErrand: () => {},
  });
  return { rules, sent };
}

const cook = (inventorySlot: number): Step => ({
  event: "player:action",
  data: { action: "cook", inventorySlot },
});

describe("agent rules: a cook under way", () => {
  it("lets the world cook its raw food one after another instead of naming slots again", () => {
    const { rules, sent } = rulesTurn();
    rules.decide(view(BESIDE_RANGE, [4, 5, 6]), combat);
    assert.deepEqual(sent, [cook(4)]);
    // The world cooked slot 4; the agent, beside the range with raw food left, asks nothing more.
    rules.decide(view(BESIDE_RANGE, [5, 6]), combat);
    rules.decide(view(BESIDE_RANGE, [6]), combat);
    assert.deepEqual(sent, [cook(4)]);
    // All cooked: it decides again, and eats what it cooked.
    const cooked = view(BESIDE_RANGE, []);
    rules.decide({ ...cooked, inventory: [{ slot: 4, itemId: "shrimps", quantity: 1 }] }, combat);
    assert.deepEqual(sent, [cook(4), { event: "inventory:use", data: { inventorySlot: 4 } }]);
  });

  it("waits while the world walks it to the range, and asks again once refused", () => {
    const { rules, sent } = rulesTurn();
    rules.decide(view({ x: 14, z: 10 }, [4, 5]), combat);
    assert.deepEqual(sent, [cook(4)]);
    rules.decide(view({ x: 12, z: 10 }, [4, 5]), combat);
    assert.equal(sent.length, 1, "walking there, it waits");
    rules.refused();
    rules.decide(view(BESIDE_RANGE, [4, 5]), combat);
    assert.deepEqual(sent, [cook(4), cook(4)]);
  });
});
