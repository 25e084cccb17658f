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
    sent: () => sent.length,
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

describe("agent rules: a walk under way", () => {
  const woodcutting: Goal = { ...combat, type: "woodcutting", description: "chop" };
  /** An agent with an axe and nothing in view: it walks towards the nearest trees the map gives. */
  const at = (position: Tile): AgentView => ({
    ...view(position, []),
    inventory: [{ slot: 0, itemId: "bronze_axe", quantity: 1 }],
    entities: [],
  });

  it("is asked of the world once while the agent moves, again once it stops or another message went", () => {
    const sent: Step[] = [];
    const rules = new RulesTurn({
      name: "Walker",
      world,
      goalsPaused: () => false,
      target: () => undefined,
      send: (step) => sent.push(step),
      sent: () => sent.length,
      chose: () => {},
      startErrand: () => {},
    });
    const walks = () => sent.filter((step) => step.event === "player:move");
    rules.decide(at({ x: 60, z: 60 }), woodcutting);
    assert.equal(walks().length, 1, "a walk towards the trees");
    rules.decide(at({ x: 59, z: 59 }), woodcutting);
    rules.decide(at({ x: 58, z: 58 }), woodcutting);
    assert.equal(walks().length, 1, "moving there: not asked again");
    rules.decide(at({ x: 58, z: 58 }), woodcutting);
    assert.equal(walks().length, 2, "stood still: asked again");
    rules.decide(at({ x: 57, z: 57 }), woodcutting);
    sent.push({ event: "player:action", data: { action: "stop" } });
    rules.decide(at({ x: 56, z: 56 }), woodcutting);
    assert.equal(walks().length, 3, "another message went meanwhile: asked again");
    assert.deepEqual(walks()[2], walks()[0], "the same walk each time");
  });
});
