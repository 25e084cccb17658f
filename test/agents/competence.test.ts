import assert from "node:assert/strict";
import { type AgentView, nextStep, type SeenEntity } from "../../src/agents/brain.js";
import { buyFoodStep, foodStep, gearStep, isWinnable } from "../../src/agents/planners/competence.js";
import { eatBelow } from "../../src/agents/planners/fighter.js";
import { WorldMap } from "../../src/game/map.js";
import { SKILLS } from "../../src/game/types.js";
import { xpForLevel } from "../../src/game/xp.js";
import { BOOTH, GOBLIN_SPAWN, gameData, SPAWN } from "../game/world-fixture.js";

const data = gameData();
const map = new WorldMap(data.areas, data);
const world = { data, map };

function view(changes: Partial<AgentView> = {}, health = 10, level = 1): AgentView {
  return {
    self: { id: "agent", position: SPAWN, health, maxHealth: 10 },
    inventory: [],
    skills: Object.fromEntries(
      SKILLS.map((skill) => [skill, { xp: xpForLevel(level) }]),
    ) as AgentView["skills"],
    entities: [],
    ...changes,
  };
}

const range: SeenEntity = {
  id: "station:1",
  kind: "resource",
  type: "cooking_range",
  position: { x: 8, z: 10 },
};

describe("agent rules: gear, fights and food", () => {
  it("wields the best weapon it carries and may use, never one above its level", () => {
    const inventory = [
      { slot: 0, itemId: "bronze_axe", quantity: 1 },
      { slot: 1, itemId: "bronze_sword", quantity: 1 },
      { slot: 2, itemId: "rune_sword", quantity: 1 },
    ];
    // The sword beats the axe; the rune sword needs attack 40.
    assert.deepEqual(gearStep(view({ inventory: [inventory[0]!, inventory[2]!] }), data), {
      event: "inventory:use",
      data: { inventorySlot: 0 },
    });
    assert.deepEqual(gearStep(view({ inventory, equipment: { weapon: "bronze_axe" } }), data), {
      event: "inventory:use",
      data: { inventorySlot: 1 },
    });
    assert.equal(gearStep(view({ inventory, equipment: { weapon: "bronze_sword" } }), data), undefined);
    // The combat goal wields it before picking a fight.
    assert.deepEqual(nextStep("combat", view({ inventory: [inventory[1]!] }), world, undefined), {
      event: "inventory:use",
      data: { inventorySlot: 1 },
    });
  });

  it("fights monsters it can beat: stronger ones once its own level has grown", () => {
    const strong = { ...data.npcs.get("goblin")!, id: "brute", combatLevel: 20 };
    const withBrute = { ...data, npcs: new Map([...data.npcs, ["brute", strong]]) };
    assert.equal(isWinnable(withBrute, "brute", view(), 5), false);
    assert.equal(isWinnable(withBrute, "brute", view({}, 10, 30), 5), true);
    const angry = { ...strong, id: "angry", aggressive: true, combatLevel: 1 };
    assert.equal(
      isWinnable({ ...data, npcs: new Map([["angry", angry]]) }, "angry", view({}, 10, 30), 5),
      false,
    );
  });

  it("out of food, cooks its catch on a range in view, lights a fire outside town, or withdraws food at the bank", () => {
    const raw = [{ slot: 4, itemId: "raw_shrimps", quantity: 1 }];
    assert.deepEqual(foodStep(view({ inventory: raw, entities: [range] }), world), {
      event: "player:action",
      data: { action: "cook", inventorySlot: 4 },
    });
    const logs = [
      ...raw,
      { slot: 5, itemId: "logs", quantity: 1 },
      { slot: 6, itemId: "tinderbox", quantity: 1 },
    ];
    assert.deepEqual(foodStep(view({ inventory: logs }), world), {
      event: "player:action",
      data: { action: "light_fire", inventorySlot: 5 },
    });
    const atBooth = { ...view({ bank: [{ itemId: "shrimps", quantity: 30 }] }) };
    atBooth.self = { ...atBooth.self, position: { x: BOOTH.x - 1, z: BOOTH.z } };
    assert.deepEqual(foodStep(atBooth, world), {
      event: "bank:withdraw",
      data: { itemId: "shrimps", quantity: 10 },
    });
    // With food carried, nothing to do.
    assert.equal(
      foodStep(view({ inventory: [{ slot: 0, itemId: "shrimps", quantity: 1 }], entities: [range] }), world),
      undefined,
    );
  });

  it("low and out of food, fishes a few with its net and takes them to the range to cook", () => {
    const net = { slot: 0, itemId: "small_fishing_net", quantity: 1 };
    const spot: SeenEntity = {
      id: "resource:net",
      kind: "resource",
      type: "net_spot",
      position: { x: 22, z: 2 },
    };
    const far = { x: 22, z: 6 };
    // No food, health below half, a fishing spot in view: it fishes rather than wait to heal.
    assert.deepEqual(nextStep("combat", view({ inventory: [net], entities: [spot] }, 4), world, undefined), {
      event: "player:action",
      data: { action: "fish", targetId: spot.id },
    });
    // Fishing there, with one fish caught: it fishes on.
    const oneFish = [net, { slot: 1, itemId: "raw_shrimps", quantity: 1 }];
    assert.equal(
      nextStep("combat", view({ inventory: oneFish, entities: [spot] }, 4), world, spot.id),
      undefined,
    );
    // With four fish, far from the range, it walks beside it to cook.
    const fish = [net, ...[1, 2, 3, 4].map((slot) => ({ slot, itemId: "raw_shrimps", quantity: 1 }))];
    const away = {
      ...view({ inventory: fish, entities: [spot] }, 4),
      self: { id: "agent", position: far, health: 4, maxHealth: 10 },
    };
    const walk = nextStep("combat", away, world, undefined);
    assert.equal(walk?.event, "player:move");
    const to = walk!.data as { x: number; z: number };
    assert.ok(Math.max(Math.abs(to.x - 8), Math.abs(to.z - 10)) <= 1, "beside the range");
  });

  it("too low to start a fight and carrying only raw food, it cooks it rather than wait to heal", () => {
    const goblin: SeenEntity = { id: "npc:1", kind: "npc", type: "goblin", position: GOBLIN_SPAWN };
    const raw = [{ slot: 4, itemId: "raw_shrimps", quantity: 1 }];
    const seen = { inventory: raw, entities: [goblin, range] };
    assert.deepEqual(nextStep("combat", view(seen, eatBelow(1), 10), world, undefined), {
      event: "player:action",
      data: { action: "cook", inventorySlot: 4 },
    });
    // Healthy, it fights.
    assert.deepEqual(nextStep("combat", view(seen, 10, 10), world, undefined), {
      event: "player:action",
      data: { action: "attack", targetId: goblin.id },
    });
  });

  it("buys the most health its coins pay for beside the nearest shopkeeper selling food, walking there first", () => {
    const store = {
      id: "store",
      name: "Store",
      npcId: "keeper",
      items: [
        { itemId: "shrimps", stock: 10, price: 5 },
        { itemId: "bronze_axe", stock: 5, price: 1 },
      ],
    };
    const shop = {
      data: {
        ...data,
        areas: data.areas.map((area) => ({
          ...area,
          npcSpawns: [...area.npcSpawns, { npcId: "keeper", x: 20, z: 10 }],
        })),
        stores: new Map([[store.id, store]]),
      },
      map,
    };
    const coins = (quantity: number) => [{ slot: 0, itemId: "coins", quantity }];
    const step = buyFoodStep(view({ inventory: coins(23) }), shop);
    assert.equal(step?.event, "player:move");
    const { x, z } = step!.data as { x: number; z: number };
    assert.ok(Math.max(Math.abs(x - 20), Math.abs(z - 10)) <= 1, "beside the shopkeeper's spawn");
    const beside = view({
      inventory: coins(23),
      self: { id: "agent", position: { x: 19, z: 10 }, health: 3, maxHealth: 10 },
      entities: [{ id: "npc:9", kind: "npc", type: "keeper", position: { x: 20, z: 10 } }],
    });
    assert.deepEqual(buyFoodStep(beside, shop), {
      event: "store:buy",
      data: { targetId: "npc:9", itemId: "shrimps", quantity: 4 },
    });
    // Too few coins for any food: it does not go.
    assert.equal(buyFoodStep(view({ inventory: coins(4) }), shop), undefined);
  });
});
