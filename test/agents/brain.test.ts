import assert from "node:assert/strict";
import {
  type AgentView,
  bankStep,
  dropStep,
  MAX_DROP_FAILURES,
  MAX_DROPS_PER_COMMAND,
  nextDrop,
  nextStep,
  parseDropCommand,
  pickupStep,
  type SeenEntity,
  trainingStyle,
} from "../../src/agents/brain.js";
import { WorldMap } from "../../src/game/map.js";
import { INVENTORY_SLOTS, SKILLS } from "../../src/game/types.js";
import { BOOTH, gameData, SPAWN } from "../game/world-fixture.js";

const data = gameData();
const map = new WorldMap(data.areas, data);

function view(changes: Partial<AgentView> = {}, health = 10): AgentView {
  return {
    self: { id: "agent", position: SPAWN, health, maxHealth: 10 },
    inventory: [{ slot: 0, itemId: "bronze_axe", quantity: 1 }],
    skills: Object.fromEntries(SKILLS.map((skill) => [skill, { xp: 0 }])) as AgentView["skills"],
    entities: [],
    ...changes,
  };
}

const tree = (id: string, x: number, depleted = false): SeenEntity => ({
  id,
  kind: "resource",
  type: "tree",
  x,
  z: SPAWN.z,
  depleted,
});

describe("agent brain: what an agent does next", () => {
  it("chops the nearest tree that is not depleted, and keeps at it while it stands", () => {
    const entities = [tree("far", SPAWN.x + 9), tree("near", SPAWN.x + 3), tree("stump", SPAWN.x + 1, true)];
    assert.deepEqual(nextStep("woodcutting", view({ entities }), data, undefined), {
      event: "player:action",
      data: { action: "chop", targetId: "near" },
    });
    assert.equal(nextStep("woodcutting", view({ entities }), data, "near"), undefined);
  });

  it("drops what it gathered, never its tools, when the inventory is full", () => {
    const inventory = [
      { slot: 0, itemId: "bronze_axe", quantity: 1 },
      ...Array.from({ length: INVENTORY_SLOTS - 1 }, (_, i) => ({
        slot: i + 1,
        itemId: "logs",
        quantity: 1,
      })),
    ];
    const step = nextStep(
      "woodcutting",
      view({ inventory, entities: [tree("t", SPAWN.x + 3)] }),
      data,
      undefined,
    );
    assert.deepEqual(step, { event: "player:action", data: { action: "drop", inventorySlot: 1 } });
  });

  it("attacks a monster a new character can beat, eats when its health runs low, and flees without food", () => {
    const goblin: SeenEntity = {
      id: "npc:1",
      kind: "npc",
      type: "goblin",
      x: SPAWN.x,
      z: SPAWN.z + 4,
      health: 5,
    };
    assert.deepEqual(nextStep("combat", view({ entities: [goblin] }), data, undefined), {
      event: "player:action",
      data: { action: "attack", targetId: "npc:1" },
    });
    const hungry = view({ entities: [goblin], inventory: [{ slot: 3, itemId: "shrimps", quantity: 1 }] }, 3);
    assert.deepEqual(nextStep("combat", hungry, data, "npc:1"), {
      event: "inventory:use",
      data: { inventorySlot: 3 },
    });
    assert.deepEqual(nextStep("combat", view({ entities: [goblin] }, 3), data, "npc:1"), {
      event: "player:action",
      data: { action: "flee" },
    });
  });

  it("picks up the nearest item on the ground", () => {
    const items: SeenEntity[] = [
      { id: "item:2", kind: "item", type: "logs", x: SPAWN.x + 5, z: SPAWN.z },
      { id: "item:1", kind: "item", type: "coins", x: SPAWN.x + 1, z: SPAWN.z },
    ];
    assert.deepEqual(pickupStep(view({ entities: items })), {
      event: "player:action",
      data: { action: "pickup", targetId: "item:1" },
    });
    assert.equal(pickupStep(view()), undefined);
  });

  it("walks beside a bank booth, then deposits everything but its tools", () => {
    const inventory = [
      { slot: 0, itemId: "bronze_axe", quantity: 1 },
      { slot: 4, itemId: "logs", quantity: 1 },
    ];
    const away = bankStep(
      view({ inventory, self: { id: "a", position: { x: 30, z: 30 }, health: 10, maxHealth: 10 } }),
      data,
      map,
    );
    assert.equal(away?.event, "player:move");
    const besideBooth = { x: BOOTH.x - 1, z: BOOTH.z };
    const near = bankStep(
      view({ inventory, self: { id: "a", position: besideBooth, health: 10, maxHealth: 10 } }),
      data,
      map,
    );
    assert.deepEqual(near, { event: "bank:deposit", data: { inventorySlot: 4, quantity: 1 } });
    assert.equal(bankStep(view(), data, map), undefined, "nothing but tools: nothing to bank");
  });

  it("reads the dashboard's drop commands: everything, or every entry of an item named by id or name", () => {
    assert.deepEqual(parseDropCommand("drop all", data), {});
    assert.deepEqual(parseDropCommand("Drop all raw shrimps", data), { itemId: "raw_shrimps" });
    assert.deepEqual(parseDropCommand("drop logs", data), { itemId: "logs" });
    assert.equal(parseDropCommand("drop", data), undefined);
    assert.equal(parseDropCommand("drop all dragons", data), undefined);
    assert.equal(parseDropCommand("dropping by", data), undefined);
  });

  it("drops the inventory's entries one by one, of one item or of all", () => {
    const inventory = [
      { slot: 0, itemId: "bronze_axe", quantity: 1 },
      { slot: 4, itemId: "logs", quantity: 1 },
    ];
    assert.deepEqual(dropStep(view({ inventory }), "logs"), {
      event: "player:action",
      data: { action: "drop", inventorySlot: 4 },
    });
    assert.deepEqual(dropStep(view({ inventory }), undefined)?.data, { action: "drop", inventorySlot: 0 });
    assert.equal(dropStep(view({ inventory: [inventory[0]!] }), "logs"), undefined);
  });

  it("drops at most 50 entries a command, and gives up after 3 refusals in a row", () => {
    // A view that never changes: every drop is taken, and the inventory still shows logs.
    const full = view({ inventory: [{ slot: 4, itemId: "logs", quantity: 1 }] });
    const command = { itemId: "logs", dropped: 0, failures: 0 };
    let drops = 0;
    while (nextDrop(command, full)) drops++;
    assert.equal(drops, MAX_DROPS_PER_COMMAND);
    const failing = { itemId: "logs", dropped: 0, failures: MAX_DROP_FAILURES };
    assert.equal(nextDrop(failing, full), undefined);
    assert.equal(nextDrop({ ...failing, failures: MAX_DROP_FAILURES - 1 }, full)?.data.inventorySlot, 4);
  });

  it("fights in the style that trains its weakest melee skill", () => {
    const skills = (attack: number, strength: number, defence: number) =>
      ({
        ...view().skills,
        attack: { xp: attack },
        strength: { xp: strength },
        defence: { xp: defence },
      }) as AgentView["skills"];
    assert.equal(trainingStyle(view({ skills: skills(0, 0, 0) })), "accurate");
    assert.equal(trainingStyle(view({ skills: skills(100, 40, 60) })), "aggressive");
    assert.equal(trainingStyle(view({ skills: skills(100, 140, 60) })), "defensive");
  });
});
