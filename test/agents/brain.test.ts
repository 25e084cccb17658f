import assert from "node:assert/strict";
import {
  type AgentView,
  bankStep,
  banksWhenFull,
  dropStep,
  errandStep,
  gatherStep,
  MAX_DROPS_PER_COMMAND,
  MAX_ERRAND_FAILURES,
  newErrand,
  nextStep,
  parseDropCommand,
  pickupStep,
  type SeenEntity,
  trainingStyle,
} from "../../src/agents/brain.js";
import { placeKey, walkToSoonest } from "../../src/agents/planners/places.js";
import { WorldMap } from "../../src/game/map.js";
import { INVENTORY_SLOTS, SKILLS } from "../../src/game/types.js";
import { BOOTH, ENCLOSED, GOBLIN_SPAWN, gameData, SPAWN } from "../game/world-fixture.js";

const data = gameData();
const map = new WorldMap(data.areas, data);
const world = { data, map };

function view(changes: Partial<AgentView> = {}, health = 10): AgentView {
  return {
    self: { id: "agent", position: SPAWN, health, maxHealth: 10 },
    inventory: [{ slot: 0, itemId: "bronze_axe", quantity: 1 }],
    // Already armed as well as it can be: wielding is src/agents/planners/competence.ts's test.
    equipment: { weapon: "bronze_axe" },
    skills: Object.fromEntries(SKILLS.map((skill) => [skill, { xp: 0 }])) as AgentView["skills"],
    entities: [],
    ...changes,
  };
}

const tree = (id: string, x: number, depleted = false): SeenEntity => ({
  id,
  kind: "resource",
  type: "tree",
  position: { x, z: SPAWN.z },
  depleted,
});

describe("agent brain: what an agent does next", () => {
  it("chops the nearest tree that is not depleted, and keeps at it while it stands", () => {
    const entities = [tree("far", SPAWN.x + 9), tree("near", SPAWN.x + 3), tree("stump", SPAWN.x + 1, true)];
    assert.deepEqual(nextStep("woodcutting", view({ entities }), world, undefined), {
      event: "player:action",
      data: { action: "chop", targetId: "near" },
    });
    assert.equal(nextStep("woodcutting", view({ entities }), world, "near"), undefined);
  });

  it("leaves alone what it has no tool for: without an axe no tree is chopped or walked to", () => {
    const entities = [tree("near", SPAWN.x + 3)];
    const unarmed = view({ entities, inventory: [], equipment: {} });
    assert.equal(gatherStep("woodcutting", unarmed, world, undefined), undefined);
    // Wielded, the axe counts as much as carried.
    assert.deepEqual(gatherStep("woodcutting", view({ entities, inventory: [] }), world, undefined), {
      event: "player:action",
      data: { action: "chop", targetId: "near" },
    });
  });

  const fullOfLogs = [
    { slot: 0, itemId: "bronze_axe", quantity: 1 },
    ...Array.from({ length: INVENTORY_SLOTS - 1 }, (_, i) => ({ slot: i + 1, itemId: "logs", quantity: 1 })),
  ];

  it("banks a gatherer's full inventory when a bank booth can be reached", () => {
    assert.equal(banksWhenFull("woodcutting", view({ inventory: fullOfLogs }), world), true);
    assert.equal(
      banksWhenFull("woodcutting", view({ inventory: fullOfLogs.slice(1) }), world),
      false,
      "room left",
    );
    assert.equal(banksWhenFull("combat", view({ inventory: fullOfLogs }), world), false, "not gathering");
    const walledIn = view({ inventory: fullOfLogs, self: { ...view().self, position: ENCLOSED } });
    assert.equal(banksWhenFull("woodcutting", walledIn, world), false, "no way out of the ring to a booth");
  });

  it("drops what it gathered, never its tools, when the inventory is full", () => {
    const inventory = fullOfLogs;
    const step = nextStep(
      "woodcutting",
      view({ inventory, entities: [tree("t", SPAWN.x + 3)] }),
      world,
      undefined,
    );
    assert.deepEqual(step, { event: "player:action", data: { action: "drop", inventorySlot: 1 } });
  });

  it("attacks a monster a new character can beat, eats when its health runs low, and flees without food", () => {
    const goblin: SeenEntity = {
      id: "npc:1",
      kind: "npc",
      type: "goblin",
      position: { x: SPAWN.x, z: SPAWN.z + 4 },
      health: 5,
    };
    assert.deepEqual(nextStep("combat", view({ entities: [goblin] }), world, undefined), {
      event: "player:action",
      data: { action: "attack", targetId: "npc:1" },
    });
    const hungry = view({ entities: [goblin], inventory: [{ slot: 3, itemId: "shrimps", quantity: 1 }] }, 3);
    assert.deepEqual(nextStep("combat", hungry, world, "npc:1"), {
      event: "inventory:use",
      data: { inventorySlot: 3 },
    });
    assert.deepEqual(nextStep("combat", view({ entities: [goblin] }, 3), world, "npc:1"), {
      event: "player:action",
      data: { action: "flee" },
    });
  });

  it("keeps running from a monster it fled while that monster still strikes it", () => {
    const goblin: SeenEntity = {
      id: "npc:1",
      kind: "npc",
      type: "goblin",
      position: { x: SPAWN.x, z: SPAWN.z + 2 },
      health: 5,
    };
    const coins: SeenEntity = { id: "item:1", kind: "item", type: "coins", position: { ...SPAWN } };
    const raw = [{ slot: 1, itemId: "raw_shrimps", quantity: 1 }];
    // Fled (no fight under way), low, with nothing cooked: it runs on rather than cook or loot.
    const chased = view({ entities: [goblin, coins], inventory: raw, attackedBy: ["npc:1"] }, 3);
    assert.deepEqual(nextStep("combat", chased, world, undefined), {
      event: "player:action",
      data: { action: "flee" },
    });
    // Once no strike came for a while, the fight is over: it picks up what lies there.
    const rested = view({ entities: [goblin, coins], inventory: raw }, 3);
    assert.deepEqual(nextStep("combat", rested, world, undefined), {
      event: "player:action",
      data: { action: "pickup", targetId: "item:1" },
    });
  });

  it("picks up the nearest item on the ground", () => {
    const items: SeenEntity[] = [
      { id: "item:2", kind: "item", type: "logs", position: { x: SPAWN.x + 5, z: SPAWN.z } },
      { id: "item:1", kind: "item", type: "coins", position: { x: SPAWN.x + 1, z: SPAWN.z } },
    ];
    assert.deepEqual(pickupStep(view({ entities: items })), {
      event: "player:action",
      data: { action: "pickup", targetId: "item:1" },
    });
    assert.equal(pickupStep(view()), undefined);
  });

  it("walks beside a bank booth, then deposits what it gathered and looted, an item at a time, never its kit", () => {
    const kit = [
      { slot: 0, itemId: "bronze_axe", quantity: 1 },
      { slot: 1, itemId: "tinderbox", quantity: 1 },
      { slot: 2, itemId: "bronze_sword", quantity: 1 },
      { slot: 3, itemId: "shrimps", quantity: 1 },
    ];
    const inventory = [
      ...kit,
      { slot: 4, itemId: "logs", quantity: 1 },
      { slot: 5, itemId: "logs", quantity: 1 },
      { slot: 6, itemId: "bones", quantity: 1 },
    ];
    const away = bankStep(
      view({ inventory, self: { id: "a", position: { x: 30, z: 30 }, health: 10, maxHealth: 10 } }),
      world,
    );
    assert.equal(away?.event, "player:move");
    const besideBooth = { x: BOOTH.x - 1, z: BOOTH.z };
    const beside = (entries: typeof inventory) =>
      view({ inventory: entries, self: { id: "a", position: besideBooth, health: 10, maxHealth: 10 } });
    assert.deepEqual(
      bankStep(beside(inventory), world),
      { event: "bank:deposit", data: { inventorySlot: 4, quantity: 2 } },
      "both logs",
    );
    assert.deepEqual(
      bankStep(beside([...kit, { slot: 6, itemId: "bones", quantity: 1 }]), world),
      { event: "bank:deposit", data: { inventorySlot: 6, quantity: 1 } },
      "then the bones",
    );
    assert.equal(bankStep(beside(kit), world), undefined, "nothing but its kit: nothing to bank");
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
    const command = newErrand("drop", "logs");
    let drops = 0;
    while (errandStep(command, full, world, undefined)) drops++;
    assert.equal(drops, MAX_DROPS_PER_COMMAND);
    const failing = { ...newErrand("drop", "logs"), failures: MAX_ERRAND_FAILURES };
    assert.equal(errandStep(failing, full, world, undefined), undefined);
    const step = errandStep({ ...failing, failures: MAX_ERRAND_FAILURES - 1 }, full, world, undefined);
    assert.equal(typeof step === "object" && step.data.inventorySlot, 4);
  });

  it("gives up banking after 3 refusals in a row (a full bank), as every errand does", () => {
    const beside = { id: "a", position: { x: BOOTH.x - 1, z: BOOTH.z }, health: 10, maxHealth: 10 };
    const withLogs = view({ self: beside, inventory: [{ slot: 4, itemId: "logs", quantity: 1 }] });
    const errand = newErrand("bank");
    assert.equal(errandStep(errand, withLogs, world, undefined) !== undefined, true);
    errand.failures = MAX_ERRAND_FAILURES;
    assert.equal(errandStep(errand, withLogs, world, undefined), undefined);
  });

  it("waits while the item it walks to pick up is still on the ground, then picks up the next", () => {
    const items: SeenEntity[] = [
      { id: "item:1", kind: "item", type: "coins", position: { x: SPAWN.x + 6, z: SPAWN.z } },
      { id: "item:2", kind: "item", type: "logs", position: { x: SPAWN.x + 7, z: SPAWN.z } },
    ];
    const errand = newErrand("pickup");
    assert.deepEqual(errandStep(errand, view({ entities: items }), world, undefined), {
      event: "player:action",
      data: { action: "pickup", targetId: "item:1" },
    });
    assert.equal(errandStep(errand, view({ entities: items }), world, "item:1"), "wait");
    assert.deepEqual(errandStep(errand, view({ entities: items.slice(1) }), world, "item:1"), {
      event: "player:action",
      data: { action: "pickup", targetId: "item:2" },
    });
    assert.equal(errandStep(errand, view(), world, "item:2"), undefined, "nothing left: done");
  });

  it("walks towards the resources or monsters the map places, when none is in view", () => {
    // Nothing in view: beside the meadow's tree (14,10), the nearest walkable tile from the spawn.
    const toTree = nextStep("woodcutting", view(), world, undefined);
    assert.equal(toTree?.event, "player:move");
    assert.equal(Math.max(Math.abs(Number(toTree?.data.x) - 14), Math.abs(Number(toTree?.data.z) - 10)), 1);
    // The tree in view is a stump: the map has no other, so the agent waits.
    const stump = tree("t", 14, true);
    assert.equal(nextStep("woodcutting", view({ entities: [stump] }), world, undefined), undefined);
    // No monster in view: to the goblins' spawn point.
    const toGoblins = nextStep("combat", view(), world, undefined);
    assert.equal(toGoblins?.event, "player:move");
    assert.equal(
      Math.max(
        Math.abs(Number(toGoblins?.data.x) - GOBLIN_SPAWN.x),
        Math.abs(Number(toGoblins?.data.z) - GOBLIN_SPAWN.z),
      ),
      1,
    );
    // Standing beside the spawn point while its goblin is dead: it waits there for the respawn.
    const atSpawn = {
      id: "a",
      position: { x: GOBLIN_SPAWN.x + 1, z: GOBLIN_SPAWN.z },
      health: 10,
      maxHealth: 10,
    };
    assert.equal(nextStep("combat", view({ self: atSpawn }), world, undefined), undefined);
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

  it("walks to the resource it can gather soonest, remembering the depleted ones out of view", () => {
    // Two places of trees, neither in view: the nearer one it saw depleted until tick 400.
    const near = { x: SPAWN.x + 3, z: SPAWN.z };
    const far = { x: SPAWN.x - 6, z: SPAWN.z };
    const at = (step: ReturnType<typeof walkToSoonest>) =>
      step && Math.max(Math.abs(Number(step.data.x) - far.x), Math.abs(Number(step.data.z) - far.z));
    const remembered = (back: Record<string, number>) =>
      view({ tick: 100, comesBack: new Map(Object.entries(back)) });
    // The near group is out of view and depleted: it does not walk back to it, but on to the far one.
    assert.equal(at(walkToSoonest(remembered({ [placeKey(near)]: 400 }), [near, far], map)), 1);
    // Both depleted: to the one back first, the walk counted.
    const both = remembered({ [placeKey(near)]: 400, [placeKey(far)]: 300 });
    assert.equal(at(walkToSoonest(both, [near, far], map)), 1);
    const nearFirst = remembered({ [placeKey(near)]: 105, [placeKey(far)]: 300 });
    const toNear = walkToSoonest(nearFirst, [near, far], map);
    assert.equal(toNear?.event, "player:move");
    assert.notEqual(at(toNear), 1);
  });
});
