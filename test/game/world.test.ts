import assert from "node:assert/strict";
import { newCharacter } from "../../src/game/character.js";
import type { CombatStyle } from "../../src/game/combat.js";
import { equipmentBonuses, HEALTH_REGEN_TICKS } from "../../src/game/combat.js";
import { DESPAWN_TICKS, OWNER_ONLY_TICKS } from "../../src/game/ground-items.js";
import { WorldMap } from "../../src/game/map.js";
import { seededRandom } from "../../src/game/random.js";
import { RUN_ENERGY_MAX, RUN_RESTORE_PER_TICK, runEnergy } from "../../src/game/run-energy.js";
import { chebyshev } from "../../src/game/tile.js";
import { type Bounds, EAT_TICKS, type GameData, type ItemDef, type Tile } from "../../src/game/types.js";
import { World } from "../../src/game/world.js";
import { COOK_TICKS } from "../../src/game/world-skills.js";
import type { Intent, OutboundEvent } from "../../src/game/world-types.js";
import { XP_CAP } from "../../src/game/xp.js";
import { skillsAt } from "./fixtures.js";
import {
  BOOTH,
  character,
  ENCLOSED,
  GOBLIN_SPAWN,
  gameData,
  makeWorld,
  SPAWN,
  stepUntil,
  worldWith,
} from "./world-fixture.js";

function slotOf(world: World, playerId: string, itemId: string): number {
  const entry = world.inventory(playerId).find((candidate) => candidate.itemId === itemId);
  assert.ok(entry, `${playerId} carries ${itemId}`);
  return entry.slot;
}

function position(world: World, playerId = "p1"): Tile {
  return world.character(playerId).position;
}

/** A player at (9, 30) beside the fire it lit, carrying `rawShrimps` raw shrimps. */
function cookBesideFire(rawShrimps: number): World {
  const world = worldWith({ x: 10, z: 30 });
  world.submit("p1", { type: "give", itemId: "logs", quantity: 1 });
  world.submit("p1", { type: "give", itemId: "raw_shrimps", quantity: rawShrimps });
  world.step();
  world.submit("p1", { type: "action", action: "light_fire", inventorySlot: slotOf(world, "p1", "logs") });
  stepUntil(world, () => world.entities().some((entity) => entity.type === "fire"));
  return world;
}

function eventsOf<E extends OutboundEvent["event"]>(
  reports: { events: OutboundEvent[] }[],
  name: E,
): Extract<OutboundEvent, { event: E }>[] {
  return reports.flatMap((report) =>
    report.events.filter((event): event is Extract<OutboundEvent, { event: E }> => event.event === name),
  );
}

/**
 * The fixture world with a shortbow and its arrows, a `wall` of blocked tiles, `water`, and an archer
 * "p1" at `at`.
 */
function archerWorld(
  at: Tile,
  { wall = [], water = [], combatStyle }: { wall?: Tile[]; water?: Bounds[]; combatStyle?: CombatStyle } = {},
): { world: World; data: GameData } {
  const fixture = gameData();
  const bow: ItemDef = {
    id: "shortbow",
    name: "Shortbow",
    type: "weapon",
    value: 50,
    stackable: false,
    tradeable: true,
    equipSlot: "weapon",
    combatType: "ranged",
    attackSpeed: 4,
  };
  const arrows: ItemDef = {
    id: "bronze_arrow",
    name: "Bronze arrow",
    type: "weapon",
    value: 1,
    stackable: true,
    tradeable: true,
    equipSlot: "ammo",
  };
  const data = gameData({
    items: new Map([...fixture.items, [bow.id, bow], [arrows.id, arrows]]),
    ammunition: new Map([
      ["bronze_arrow", { itemId: "bronze_arrow", rangedStrength: 7, weapons: ["shortbow"] }],
    ]),
    areas: fixture.areas.map((area) => ({
      ...area,
      blocked: [...area.blocked, ...wall],
      water: [...area.water, ...water],
    })),
  });
  const world = new World({ data, random: seededRandom(7) });
  world.join(
    character("p1", {
      position: { ...at },
      equipment: { weapon: "shortbow", ammo: "bronze_arrow" },
      inventory: [{ slot: 0, itemId: "bronze_arrow", quantity: 50 }],
      ...(combatStyle ? { combatStyle } : {}),
    }),
  );
  return { world, data };
}

/** Sends the archer "p1" at the goblin: the tick of its first shot and where it stood. */
function firstShot(world: World): { ticks: number; from: Tile } {
  const goblin = world.entities().find((entity) => entity.type === "goblin")!;
  world.submit("p1", { type: "action", action: "attack", targetId: goblin.id });
  for (let ticks = 1; ticks <= 50; ticks++) {
    const { events } = world.step();
    if (events.some((event) => event.event === "combat:hit" && event.data.attackerId === "p1"))
      return { ticks, from: position(world) };
  }
  throw new Error("no shot within 50 ticks");
}

describe("World", () => {
  describe("new characters", () => {
    it("start at the spawn point with the starter kit, constitution 10 and 10 health", () => {
      const state = newCharacter("c1", "Alice", gameData());
      assert.deepEqual(state.position, SPAWN);
      assert.equal(state.health, 10);
      assert.deepEqual(state.skills.constitution, { level: 10, xp: 1154 });
      assert.deepEqual(state.skills.woodcutting, { level: 1, xp: 0 });
      assert.deepEqual(
        state.inventory.map((entry) => [entry.itemId, entry.quantity]),
        [
          ["bronze_axe", 1],
          ["bronze_pickaxe", 1],
          ["small_fishing_net", 1],
          ["tinderbox", 1],
          ["bronze_sword", 1],
          ["shrimps", 1],
          ["shrimps", 1],
          ["coins", 25],
        ],
      );
    });

    it("are in the world from join until leave, which returns the state to persist", () => {
      const world = makeWorld();
      world.join(character("p1"));
      assert.ok(world.has("p1"));
      assert.deepEqual(world.step().changedEntities, ["p1"]);
      assert.deepEqual(world.step().changedEntities, [], "nothing changes while the player stands still");
      const saved = world.leave("p1");
      assert.equal(world.has("p1"), false);
      assert.deepEqual(saved.position, SPAWN);
      assert.deepEqual(world.step().removedEntities, ["p1"]);
    });
  });

  describe("movement", () => {
    it("refuses a target more than 200 tiles away", () => {
      const world = worldWith();
      assert.equal(world.submit("p1", { type: "move", x: SPAWN.x + 201, z: SPAWN.z })?.code, "move_too_far");
      assert.equal(world.submit("p1", { type: "move", x: SPAWN.x, z: SPAWN.z + 50 }), undefined);
    });

    it("does not move anyone until the next tick", () => {
      const world = worldWith();
      world.submit("p1", { type: "move", x: 20, z: 10 });
      assert.deepEqual(position(world), SPAWN);
    });

    it("walks one tile a tick and runs two", () => {
      const world = worldWith({ x: 10, z: 30 });
      world.submit("p1", { type: "move", x: 20, z: 30 });
      world.step();
      assert.deepEqual(position(world), { x: 11, z: 30 });
      world.step();
      assert.deepEqual(position(world), { x: 12, z: 30 });
      world.submit("p1", { type: "move", x: 20, z: 30, run: true });
      world.step();
      assert.deepEqual(position(world), { x: 14, z: 30 });
    });

    it("runs while its run energy lasts, then walks on; energy comes back while it does not run", () => {
      // 1.50 %: two ticks of running (0.67 % each) and a third that spends the rest.
      const world = worldWith({ x: 10, z: 30 }, { runEnergy: 150 });
      world.submit("p1", { type: "move", x: 30, z: 30, run: true });
      const trail: [number, number][] = [];
      for (let tick = 0; tick < 5; tick++) {
        world.step();
        trail.push([position(world).x, world.playerSync("p1").runEnergy]);
      }
      assert.deepEqual(trail, [
        [12, 0],
        [14, 0],
        [16, 0],
        [17, 0],
        [18, 0],
      ]);
      assert.equal(world.character("p1").runEnergy, 2 * RUN_RESTORE_PER_TICK, "walking restores it");
      // 1 % is 100: 11 ticks of 8 from 16.
      for (let tick = 0; tick < 10; tick++) world.step();
      assert.equal(world.playerSync("p1").runEnergy, 0);
      world.step();
      assert.equal(world.playerSync("p1").runEnergy, 1);
    });

    it("tells the player its run energy (player:energy) when the whole percent changes, without a player:sync", () => {
      const world = worldWith({ x: 10, z: 30 });
      world.submit("p1", { type: "move", x: 30, z: 30, run: true });
      const reports = Array.from({ length: 6 }, () => world.step());
      // 100 → 99.33 → 98.66 → 97.99 → 97.32 → 96.65 → 95.98: the percent changes on ticks 1, 2, 3, 5 and 6.
      assert.deepEqual(
        reports.map((report) => eventsOf([report], "player:energy").map((event) => event.data.runEnergy)),
        [[99], [98], [97], [], [96], [95]],
      );
      assert.deepEqual(eventsOf(reports, "player:sync"), [], "no whole sync for it");
      assert.equal(world.playerSync("p1").runEnergy, 95, "player:sync shows it too");
    });

    it("reports an error when no path reaches the target", () => {
      const world = worldWith({ x: 40, z: 50 });
      world.submit("p1", { type: "move", ...ENCLOSED });
      const [error] = eventsOf([world.step()], "error");
      assert.equal(error?.data.code, "no_path");
      assert.deepEqual(position(world), { x: 40, z: 50 });
    });

    it("reports the moving player as a changed character and entity", () => {
      const world = worldWith();
      world.step();
      world.submit("p1", { type: "move", x: 10, z: 12 });
      const report = world.step();
      assert.deepEqual(report.changedCharacters, ["p1"]);
      assert.deepEqual(report.changedEntities, ["p1"]);
    });
  });

  describe("equipment and food", () => {
    it("refuses an item whose level requirement is not met", () => {
      const world = worldWith();
      world.submit("p1", { type: "give", itemId: "rune_sword", quantity: 1 });
      world.step();
      const refusal = world.submit("p1", { type: "use", inventorySlot: slotOf(world, "p1", "rune_sword") });
      assert.equal(refusal?.code, "level_too_low");
      assert.deepEqual(world.character("p1").equipment, {});
    });

    it("wears an item, whose bonuses then count, and swaps the previous one back", () => {
      const world = worldWith();
      const data = gameData();
      world.submit("p1", { type: "use", inventorySlot: slotOf(world, "p1", "bronze_axe") });
      world.step();
      world.submit("p1", { type: "use", inventorySlot: slotOf(world, "p1", "bronze_sword") });
      world.step();
      const { equipment, inventory } = world.character("p1");
      assert.deepEqual(equipment, { weapon: "bronze_sword" });
      assert.equal(equipmentBonuses(equipment, data.items).strength, 5);
      assert.ok(inventory.some((entry) => entry.itemId === "bronze_axe"));
      world.submit("p1", { type: "unequip", slot: "weapon" });
      world.step();
      assert.deepEqual(world.character("p1").equipment, {});
      assert.equal(world.inventory("p1").filter((entry) => entry.itemId.startsWith("bronze_")).length, 3);
    });

    it("eats food to heal, never above the maximum", () => {
      const world = worldWith(SPAWN, { health: 5 });
      world.submit("p1", { type: "use", inventorySlot: slotOf(world, "p1", "shrimps") });
      const report = world.step();
      assert.equal(world.character("p1").health, 8);
      assert.ok(eventsOf([report], "player:sync").length === 1);
      for (let tick = 1; tick < EAT_TICKS; tick++) world.step();
      world.submit("p1", { type: "use", inventorySlot: slotOf(world, "p1", "shrimps") });
      world.step();
      assert.equal(world.character("p1").health, 10);
      assert.equal(
        world.inventory("p1").some((entry) => entry.itemId === "shrimps"),
        false,
      );
    });

    it("eats one food at a time: another bite within 3 ticks is refused and nothing is eaten", () => {
      const world = worldWith(SPAWN, { health: 2 });
      const [first, second] = world
        .inventory("p1")
        .filter((entry) => entry.itemId === "shrimps")
        .map((entry) => entry.slot);
      const eat = (slot: number | undefined) =>
        assert.equal(world.submit("p1", { type: "use", inventorySlot: slot! }), undefined);
      const refusals = (report: { events: OutboundEvent[] }) =>
        eventsOf([report], "error").map((event) => event.data.code);
      eat(first);
      eat(second);
      assert.deepEqual(refusals(world.step()), ["too_soon"], "the second of one tick");
      assert.equal(world.character("p1").health, 5);
      assert.deepEqual(
        world
          .inventory("p1")
          .filter((entry) => entry.itemId === "shrimps")
          .map((entry) => entry.slot),
        [second],
      );
      world.step();
      eat(second);
      assert.deepEqual(refusals(world.step()), ["too_soon"], "two ticks later");
      assert.equal(world.character("p1").health, 5);
      eat(second);
      assert.deepEqual(refusals(world.step()), [], "three ticks later");
      assert.equal(world.character("p1").health, 8);
    });
  });

  describe("burying bones", () => {
    const withBones = () =>
      worldWith(SPAWN, {
        inventory: [
          { slot: 0, itemId: "bones", quantity: 1 },
          { slot: 1, itemId: "bones", quantity: 1 },
        ],
      });
    const bury = (world: World, slot: number) =>
      assert.equal(world.submit("p1", { type: "use", inventorySlot: slot }), undefined);
    const refusals = (report: { events: OutboundEvent[] }) =>
      eventsOf([report], "error").map((event) => event.data.code);

    it("takes the bones and gives their prayer XP, told in skill:xp", () => {
      const world = withBones();
      bury(world, 0);
      const report = world.step();
      assert.deepEqual(
        eventsOf([report], "skill:xp").map((event) => event.data),
        [{ skill: "prayer", xp: 4.5, gained: 4.5, level: 1 }],
      );
      assert.deepEqual(world.character("p1").skills.prayer, { level: 1, xp: 4.5 });
      assert.deepEqual(
        world.inventory("p1").map((entry) => entry.slot),
        [1],
      );
    });

    it("adds a prayer point for each prayer level gained, as constitution adds health", () => {
      // 80 XP: 3 short of level 2; spent down to 0 of its 1 point.
      const world = worldWith(SPAWN, {
        inventory: [{ slot: 0, itemId: "bones", quantity: 1 }],
        skills: { ...character("p1").skills, prayer: { level: 1, xp: 80 } },
        prayerPoints: 0,
      });
      bury(world, 0);
      world.step();
      const { skills, prayerPoints } = world.character("p1");
      assert.deepEqual([skills.prayer.level, prayerPoints], [2, 1]);
    });

    it("buries one at a time: another within 2 ticks is refused and nothing is buried", () => {
      const world = withBones();
      bury(world, 0);
      bury(world, 1);
      assert.deepEqual(refusals(world.step()), ["too_soon"], "the second of one tick");
      bury(world, 1);
      assert.deepEqual(refusals(world.step()), ["too_soon"], "the next tick");
      assert.equal(world.character("p1").skills.prayer.xp, 4.5);
      assert.equal(world.inventory("p1").length, 1);
      bury(world, 1);
      assert.deepEqual(refusals(world.step()), [], "two ticks later");
      assert.equal(world.character("p1").skills.prayer.xp, 9);
      assert.deepEqual(world.inventory("p1"), []);
    });
  });

  describe("entities", () => {
    it("describes resources and NPCs in the protocol's shape", () => {
      const world = makeWorld();
      world.join(character("p1"));
      const tree = world.entities().find((entity) => entity.type === "tree");
      assert.deepEqual(tree, {
        id: tree?.id,
        kind: "resource",
        type: "tree",
        name: "Tree",
        position: { x: 14, z: 10 },
        depleted: false,
      });
      const goblin = world.entities().find((entity) => entity.type === "goblin");
      assert.deepEqual(goblin?.position, GOBLIN_SPAWN);
      assert.equal(goblin?.health, 5);
    });

    it("are not there for a player that cannot see them: no attacking, gathering, cooking at or picking up", () => {
      const world = makeWorld();
      world.join(character("dropper", { position: { ...SPAWN } }));
      // Three view cells or more from everything below: beyond the view and the cell of slack around it.
      world.join(character("far", { position: { x: 55, z: 2 }, inventory: [] }));
      world.submit("far", { type: "give", itemId: "raw_shrimps", quantity: 1 });
      world.submit("dropper", {
        type: "action",
        action: "drop",
        inventorySlot: slotOf(world, "dropper", "coins"),
      });
      const coins = world.step().changedEntities.find((id) => id.startsWith("item:"))!;
      stepUntil(world, () => world.privateOwner(coins) === undefined);
      const idOf = (type: string) => world.entities().find((entity) => entity.type === type)!.id;
      const attempts: Intent[] = [
        { type: "action", action: "attack", targetId: idOf("goblin") },
        { type: "action", action: "attack", targetId: idOf("banker") },
        { type: "action", action: "chop", targetId: idOf("tree") },
        { type: "action", action: "pickup", targetId: coins },
        { type: "action", action: "cook", inventorySlot: slotOf(world, "far", "raw_shrimps") },
        { type: "use", inventorySlot: slotOf(world, "far", "raw_shrimps"), targetId: idOf("cooking_range") },
      ];
      for (const intent of attempts) {
        const refusal = world.submit("far", intent);
        assert.equal(refusal?.code, "not_found", JSON.stringify(intent));
        assert.doesNotMatch(
          refusal.message,
          /Goblin|Banker|Tree|Cooking range|coins/,
          "nothing is said of it",
        );
      }
      world.submit("far", { type: "teleport", ...SPAWN });
      world.step();
      for (const intent of attempts.filter(
        (attempt) => !("targetId" in attempt && attempt.targetId === idOf("banker")),
      )) {
        const refusal = world.submit("far", intent);
        assert.ok(refusal?.code !== "not_found", `in view: ${JSON.stringify(intent)} → ${refusal?.message}`);
      }
      world.submit("far", { type: "teleport", x: 30, z: 28 });
      world.step();
      assert.equal(world.submit("far", attempts[1]!)?.code, "invalid_target", "a banker in view is named");
    });

    it("stay nameable for a click that arrives after the player ran out of their view cell", () => {
      // At (29,10) the tree at (14,10) is in view; two tiles east, at (31,10), it is one cell beyond.
      const world = worldWith({ x: 31, z: 10 });
      const tree = world.entities().find((entity) => entity.type === "tree")!;
      assert.equal(world.submit("p1", { type: "action", action: "chop", targetId: tree.id }), undefined);
    });
  });

  describe("ground items", () => {
    it("lie again where they lay after a restart, with the time they had left, under their own ids and rules", () => {
      const world = makeWorld();
      // Dropped 40 ticks before the newest item (which fell on the loading world's tick 0).
      world.restoreGroundItems([
        {
          id: "item:3",
          itemId: "guild_token",
          quantity: 1,
          position: { x: 11, z: 10 },
          ownerId: "owner",
          droppedTick: 0,
        },
        {
          id: "item:9",
          itemId: "coins",
          quantity: 7,
          position: { x: 11, z: 10 },
          ownerId: "owner",
          droppedTick: 0,
        },
        { id: "item:4", itemId: "logs", quantity: 1, position: { x: 12, z: 10 }, droppedTick: -40 },
      ]);
      assert.equal(world.entity("item:9")?.quantity, 7);
      assert.equal(world.privateOwner("item:9"), "owner");
      assert.equal(world.privateOwner("item:4"), undefined, "dropped by no one: public");

      world.join(character("p1"));
      world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf(world, "p1", "coins") });
      const dropped = world.step().changedEntities.filter((id) => id.startsWith("item:"));
      assert.deepEqual(dropped, ["item:10"], "a new drop takes an id none of the restored items has");

      stepUntil(world, () => world.privateOwner("item:9") === undefined);
      assert.equal(world.tick, OWNER_ONLY_TICKS);
      assert.equal(world.privateOwner("item:3"), "owner", "an untradeable item stays its owner's alone");
      stepUntil(world, () => world.entity("item:4") === undefined);
      assert.equal(world.tick, DESPAWN_TICKS - 40);
      stepUntil(world, () => world.entity("item:3") === undefined);
      assert.equal(world.tick, DESPAWN_TICKS);
    });

    it("are seen only by their owner for 100 ticks, then by everyone, then despawn after 300", () => {
      const world = makeWorld();
      world.join(character("owner"));
      world.join(character("other", { position: { x: SPAWN.x + 1, z: SPAWN.z } }));
      world.submit("owner", {
        type: "action",
        action: "drop",
        inventorySlot: slotOf(world, "owner", "coins"),
      });
      const dropped = world.step();
      const itemId = dropped.changedEntities.find((id) => id.startsWith("item:"))!;
      assert.equal(world.entity(itemId)?.quantity, 25);
      assert.equal(world.privateOwner(itemId), "owner", "only its owner sees it");
      assert.equal(
        world.submit("other", { type: "action", action: "pickup", targetId: itemId })?.code,
        "not_found",
      );

      const reports = stepUntil(world, () => world.privateOwner(itemId) === undefined);
      assert.equal(reports.length, OWNER_ONLY_TICKS);
      assert.ok(reports.at(-1)!.changedEntities.includes(itemId), "the room learns it became public");

      const rest = stepUntil(world, () => world.entity(itemId) === undefined);
      assert.equal(world.tick, dropped.tick + DESPAWN_TICKS);
      assert.ok(rest.at(-1)!.removedEntities.includes(itemId));
    });

    it("can be picked up again by walking to them", () => {
      const world = worldWith();
      world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf(world, "p1", "coins") });
      const itemId = world.step().changedEntities.find((id) => id.startsWith("item:"))!;
      world.submit("p1", { type: "move", x: 10, z: 13 });
      stepUntil(world, () => position(world).z === 13);
      assert.equal(world.submit("p1", { type: "action", action: "pickup", targetId: itemId }), undefined);
      const reports = stepUntil(world, () => world.entity(itemId) === undefined);
      assert.ok(reports.at(-1)!.removedEntities.includes(itemId));
      assert.deepEqual(position(world), SPAWN);
      assert.equal(world.inventory("p1").find((entry) => entry.itemId === "coins")?.quantity, 25);
    });
  });

  describe("combat", () => {
    it("fights an NPC to the death; the drop is seen by the killer only", () => {
      const world = makeWorld();
      world.join(character("killer", { position: { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 5 } }));
      world.join(character("bystander", { position: { x: GOBLIN_SPAWN.x + 3, z: GOBLIN_SPAWN.z } }));
      const goblin = world.entities().find((entity) => entity.type === "goblin")!;
      world.submit("killer", { type: "use", inventorySlot: slotOf(world, "killer", "bronze_sword") });
      assert.equal(
        world.submit("killer", { type: "action", action: "attack", targetId: goblin.id }),
        undefined,
      );

      const reports = stepUntil(world, () => world.entity(goblin.id) === undefined);
      const hits = eventsOf(reports, "combat:hit").map((event) => event.data);
      const blows = hits.filter((hit) => hit.attackerId === "killer");
      assert.ok(blows.length > 0);
      assert.equal(blows.at(-1)?.targetHealth, 0);
      assert.ok(eventsOf(reports, "skill:xp").some((event) => event.data.skill === "attack"));
      assert.ok(reports.at(-1)!.removedEntities.includes(goblin.id));

      const drops = world.entities().filter((entity) => entity.kind === "item");
      assert.deepEqual(drops.map((drop) => [drop.type, drop.quantity]).sort(), [
        ["bones", 1],
        ["coins", 5],
      ]);
      for (const drop of drops) assert.equal(world.privateOwner(drop.id), "killer");
    });

    /**
     * The goblin worn down from 5 to 2 by "worker" (unarmed at level 1, it hits 1 at most), which then
     * stops, with a strong player `other` beside it: the goblin's id.
     */
    function goblinWornDown(world: World, other: string): string {
      world.join(character("worker", { position: { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 } }));
      world.join(
        character(other, {
          position: { x: GOBLIN_SPAWN.x + 1, z: GOBLIN_SPAWN.z },
          skills: skillsAt(1, { constitution: 10, attack: 60, strength: 60 }),
        }),
      );
      const goblin = world.entities().find((entity) => entity.type === "goblin")!.id;
      world.submit("worker", { type: "action", action: "attack", targetId: goblin });
      stepUntil(world, () => world.entity(goblin)!.health === 2);
      world.submit("worker", { type: "action", action: "stop" });
      return goblin;
    }

    function lootOwners(world: World): (string | undefined)[] {
      const drops = world.entities().filter((entity) => entity.kind === "item");
      assert.ok(drops.length > 0, "the goblin dropped its loot");
      return [...new Set(drops.map((drop) => world.privateOwner(drop.id)))];
    }

    it("gives the loot to the player who dealt the most damage, not to the last blow", () => {
      const world = makeWorld();
      const goblin = goblinWornDown(world, "thief");
      world.submit("thief", { type: "action", action: "attack", targetId: goblin });
      const reports = stepUntil(world, () => world.entity(goblin) === undefined);
      const blows = eventsOf(reports, "combat:hit").filter((hit) => hit.data.targetId === goblin);
      assert.equal(blows.at(-1)!.data.attackerId, "thief", "the thief struck last");
      assert.deepEqual(lootOwners(world), ["worker"]);
    });

    it("gives the loot to the killer when the player who dealt the most damage has left the world", () => {
      const world = makeWorld();
      const goblin = goblinWornDown(world, "finisher");
      // The worker logs out: loot kept for it would lie unseen by the finisher for a minute.
      world.leave("worker");
      world.submit("finisher", { type: "action", action: "attack", targetId: goblin });
      stepUntil(world, () => world.entity(goblin) === undefined);
      assert.deepEqual(lootOwners(world), ["finisher"]);
    });

    it("gives the loot to the killer when the goblin healed whole since others wore it down", () => {
      const world = makeWorld();
      const goblin = goblinWornDown(world, "killer");
      const whole = () => world.entity(goblin)!.health === world.entity(goblin)!.maxHealth;
      const leash = { type: "move", x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 16 } as const;
      // Twice the worker wears it down and runs off past its leash, staying in the world; each time the
      // goblin heals whole. The worker has dealt more than the goblin's health, more than a kill deals.
      world.submit("worker", leash);
      stepUntil(world, whole, 10 * HEALTH_REGEN_TICKS);
      world.submit("worker", { type: "move", x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 });
      stepUntil(
        world,
        () => chebyshev(world.entity("worker")!.position, world.entity(goblin)!.position) <= 1,
      );
      world.submit("worker", { type: "action", action: "attack", targetId: goblin });
      stepUntil(world, () => world.entity(goblin)!.health === 2);
      world.submit("worker", leash);
      stepUntil(world, whole, 10 * HEALTH_REGEN_TICKS);
      world.submit("killer", { type: "action", action: "attack", targetId: goblin });
      stepUntil(world, () => world.entity(goblin) === undefined);
      assert.deepEqual(lootOwners(world), ["killer"]);
    });

    it("lets an NPC fight back", () => {
      const world = worldWith({ x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 });
      const goblin = world.entities().find((entity) => entity.type === "goblin")!;
      world.submit("p1", { type: "action", action: "attack", targetId: goblin.id });
      const reports = [world.step(), world.step()];
      const hits = eventsOf(reports, "combat:hit").map((event) => event.data);
      assert.deepEqual(
        hits.map((hit) => [hit.attackerId, hit.targetId]),
        [
          ["p1", goblin.id],
          [goblin.id, "p1"],
        ],
      );
    });

    it("trains the skill of the chosen combat style", () => {
      // Defence 30: a level-1 fighter would as likely lose to the goblin as win.
      const world = worldWith(
        { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 },
        { skills: skillsAt(1, { constitution: 10, defence: 30 }) },
      );
      const goblin = world.entities().find((entity) => entity.type === "goblin")!;
      world.submit("p1", { type: "action", action: "combat_style", style: "aggressive" });
      world.submit("p1", { type: "action", action: "attack", targetId: goblin.id });
      const reports = stepUntil(world, () => world.entity(goblin.id) === undefined);
      const trained = new Set(eventsOf(reports, "skill:xp").map((event) => event.data.skill));
      assert.deepEqual([...trained].sort(), ["constitution", "strength"]);
      assert.equal(world.character("p1").skills.attack.xp, 0);
    });

    it("fights in the style a character was stored with", () => {
      const world = worldWith({ x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 }, { combatStyle: "defensive" });
      const goblin = world.entities().find((entity) => entity.type === "goblin")!;
      world.submit("p1", { type: "action", action: "attack", targetId: goblin.id });
      const reports = stepUntil(world, () => world.entity(goblin.id) === undefined);
      const trained = new Set(eventsOf(reports, "skill:xp").map((event) => event.data.skill));
      assert.deepEqual([...trained].sort(), ["constitution", "defence"]);
    });

    it("shoots only over a clear line: an archer behind a wall walks round it first", () => {
      const wall = Array.from({ length: 11 }, (_, i) => ({
        x: GOBLIN_SPAWN.x - 5 + i,
        z: GOBLIN_SPAWN.z - 3,
      }));
      // 6 tiles from the goblin, within a bow's 7, with the wall between them.
      const { world, data } = archerWorld({ x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 6 }, { wall });
      const { ticks, from } = firstShot(world);
      assert.ok(ticks > 1, "no shot through the wall at once");
      assert.ok(
        from.x < wall[0]!.x || from.x > wall.at(-1)!.x || from.z > wall[0]!.z,
        `shot from ${from.x},${from.z}, round the wall`,
      );
      assert.ok(new WorldMap(data.areas, data).hasClearLine(from, GOBLIN_SPAWN));
    });

    it("finds a tile with a clear line when it cannot walk up to its target", () => {
      // The goblin stands on an island in a moat, a rock's worth of wall on the archer's straight line.
      const { x, z } = GOBLIN_SPAWN;
      const moat: Bounds[] = [
        { minX: x - 3, maxX: x + 3, minZ: z - 3, maxZ: z - 3 },
        { minX: x - 3, maxX: x + 3, minZ: z + 3, maxZ: z + 3 },
        { minX: x - 3, maxX: x - 3, minZ: z - 2, maxZ: z + 2 },
        { minX: x + 3, maxX: x + 3, minZ: z - 2, maxZ: z + 2 },
      ];
      const wall = [{ x, z: z - 4 }];
      const { world, data } = archerWorld({ x, z: z - 6 }, { wall, water: moat });
      const { from } = firstShot(world);
      assert.ok(
        new WorldMap(data.areas, data).hasClearLine(from, GOBLIN_SPAWN),
        `shot from ${from.x},${from.z}`,
      );
    });

    it("shoots from 2 tiles further in the longrange style", () => {
      const nineAway = { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 9 };
      const longrange = firstShot(archerWorld(nineAway, { combatStyle: "longrange" }).world);
      assert.deepEqual(longrange, { ticks: 1, from: nineAway });
      const rapid = firstShot(archerWorld(nineAway, { combatStyle: "rapid" }).world);
      assert.deepEqual(
        rapid.from,
        { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 7 },
        "walked into a bow's 7 tiles",
      );
    });

    it("refuses a style change without a style", () => {
      const world = worldWith();
      assert.equal(world.submit("p1", { type: "action", action: "combat_style" })?.code, "bad_request");
    });

    it("flees: runs away from the monster fighting the player until it gives up the chase", () => {
      const world = worldWith({ x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 });
      const goblin = world.entities().find((entity) => entity.type === "goblin")!;
      assert.equal(
        world.submit("p1", { type: "action", action: "flee" })?.code,
        "invalid_target",
        "nothing to flee from",
      );
      world.submit("p1", { type: "action", action: "attack", targetId: goblin.id });
      world.step();
      world.step();
      assert.equal(world.submit("p1", { type: "action", action: "flee" }), undefined);
      const reports = [];
      for (let tick = 0; tick < 30; tick++) reports.push(world.step());
      const now = position(world);
      assert.ok(
        chebyshev(now, GOBLIN_SPAWN) > gameData().npcs.get("goblin")!.leashRange,
        `ran past the leash, to ${now.x},${now.z}`,
      );
      const lastHits = eventsOf(reports.slice(15), "combat:hit");
      assert.deepEqual(lastHits, [], "the fight is over");
    });
  });

  describe("death", () => {
    it("respawns a killed player at the spawn point with full health, their items on the ground", () => {
      const data = gameData();
      const goblin = data.npcs.get("goblin")!;
      const brute = {
        ...goblin,
        aggressive: true,
        combat: { ...goblin.combat!, constitution: 500, strength: 60 },
      };
      const world = new World({
        data: { ...data, npcs: new Map([...data.npcs, ["goblin", brute]]) },
        random: seededRandom(3),
      });
      const deathTile = { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 2 };
      // Out of prayer points and run energy: a respawn restores them, as it does health.
      world.join(character("p1", { position: deathTile, prayerPoints: 0, runEnergy: 0 }));

      const reports = stepUntil(world, () => world.character("p1").position.z === SPAWN.z);
      assert.ok(
        eventsOf(reports, "combat:hit").some((hit) => hit.data.targetId === "p1"),
        "the goblin attacked",
      );
      assert.deepEqual(
        reports.flatMap((report) => report.deaths),
        ["p1"],
        "the tick of the death reports it, once",
      );
      const state = world.character("p1");
      assert.deepEqual(state.position, SPAWN);
      assert.equal(state.health, 10);
      assert.equal(state.prayerPoints, state.skills.prayer.level);
      assert.equal(runEnergy(state), RUN_ENERGY_MAX);
      assert.ok(
        eventsOf(reports, "player:energy").some((energy) => energy.data.runEnergy === 100),
        "the player is told its run energy is full again",
      );
      assert.deepEqual(state.inventory, [], "outside a safe zone nothing is kept");
      const dropped = world.entities().filter((entity) => entity.kind === "item");
      assert.deepEqual(dropped.map((item) => item.type).sort(), [
        "bronze_axe",
        "bronze_pickaxe",
        "bronze_sword",
        "coins",
        "shrimps",
        "shrimps",
        "small_fishing_net",
        "tinderbox",
      ]);
      assert.ok(dropped.every((item) => Math.abs(item.position.z - deathTile.z) <= 1));
    });
  });

  describe("skills", () => {
    it("chops a tree until logs arrive, with woodcutting XP", () => {
      const world = worldWith();
      const tree = world.entities().find((entity) => entity.type === "tree")!;
      assert.equal(world.submit("p1", { type: "action", action: "chop", targetId: tree.id }), undefined);
      const reports = stepUntil(world, () => world.inventory("p1").some((entry) => entry.itemId === "logs"));
      assert.equal(
        Math.max(Math.abs(position(world).x - 14), Math.abs(position(world).z - 10)),
        1,
        "beside the tree",
      );
      const [xp] = eventsOf(reports, "skill:xp");
      assert.deepEqual(xp?.data, { skill: "woodcutting", xp: 25, gained: 25, level: 1 });
      assert.deepEqual(xp?.to, "p1");
    });

    it("refuses to mine a tree, or to chop without an axe", () => {
      const world = worldWith(SPAWN, { inventory: [] });
      const tree = world.entities().find((entity) => entity.type === "tree")!;
      assert.equal(
        world.submit("p1", { type: "action", action: "mine", targetId: tree.id })?.code,
        "invalid_target",
      );
      assert.deepEqual(world.submit("p1", { type: "action", action: "chop", targetId: tree.id }), {
        code: "no_tool",
        message: "You need an axe for Tree.",
      });
      assert.equal(
        world.submit("p1", { type: "action", action: "chop", targetId: "res:999" })?.code,
        "not_found",
      );
    });

    it("lights logs with a tinderbox, then cooks on the fire", () => {
      const world = worldWith({ x: 10, z: 30 });
      world.submit("p1", { type: "give", itemId: "logs", quantity: 1 });
      world.submit("p1", { type: "give", itemId: "raw_shrimps", quantity: 1 });
      world.step();
      world.submit("p1", {
        type: "use",
        inventorySlot: slotOf(world, "p1", "logs"),
        targetSlot: slotOf(world, "p1", "tinderbox"),
      });
      stepUntil(world, () => !world.inventory("p1").some((entry) => entry.itemId === "logs"));
      const fire = world.entities().find((entity) => entity.type === "fire")!;
      assert.deepEqual(fire.position, { x: 10, z: 30 });
      assert.deepEqual(position(world), { x: 9, z: 30 }, "stepped west off the fire");
      assert.equal(world.character("p1").skills.firemaking.xp, 40);

      world.submit("p1", {
        type: "use",
        inventorySlot: slotOf(world, "p1", "raw_shrimps"),
        targetId: fire.id,
      });
      stepUntil(world, () => !world.inventory("p1").some((entry) => entry.itemId === "raw_shrimps"));
      assert.ok(
        world.inventory("p1").some((entry) => entry.itemId === "shrimps" || entry.itemId === "burnt_shrimp"),
      );
    });
    it("tells the cook each food it burns, which gives no XP to show it", () => {
      const world = worldWith({ x: 10, z: 30 });
      world.submit("p1", { type: "give", itemId: "logs", quantity: 1 });
      world.submit("p1", { type: "give", itemId: "raw_shrimps", quantity: 12 });
      world.step();
      const logs = slotOf(world, "p1", "logs");
      world.submit("p1", { type: "use", inventorySlot: logs, targetSlot: slotOf(world, "p1", "tinderbox") });
      stepUntil(world, () => world.entities().some((entity) => entity.type === "fire"));
      const fire = world.entities().find((entity) => entity.type === "fire")!;
      world.submit("p1", {
        type: "use",
        inventorySlot: slotOf(world, "p1", "raw_shrimps"),
        targetId: fire.id,
      });
      const reports = stepUntil(
        world,
        () => !world.inventory("p1").some((entry) => entry.itemId === "raw_shrimps"),
      );
      const told = reports.flatMap((report) =>
        report.events.flatMap((event) =>
          event.event === "chat:message" && event.to === "p1" ? [event.data.message] : [],
        ),
      );
      const burnt = world.inventory("p1").filter((entry) => entry.itemId === "burnt_shrimp").length;
      assert.ok(burnt > 0 && burnt < 12, `${burnt} of 12 burnt at cooking level 1`);
      assert.deepEqual(told, Array(burnt).fill("You accidentally burn the raw_shrimps."));
    });
    it("lights no fire in a town, that is in a safe zone, and no fire on a fire", () => {
      const data = gameData();
      const town = new World({
        data: { ...data, areas: data.areas.map((area) => ({ ...area, safeZone: true })) },
        random: seededRandom(7),
      });
      town.join(character("p1", { position: { x: 10, z: 30 } }));
      town.submit("p1", { type: "give", itemId: "logs", quantity: 1 });
      town.step();
      const light: Intent = {
        type: "action",
        action: "light_fire",
        inventorySlot: slotOf(town, "p1", "logs"),
      };
      assert.deepEqual(town.submit("p1", light), {
        code: "cannot_light_here",
        message: "You cannot light a fire in town: light it outside.",
      });
      for (let tick = 0; tick < 10; tick++) town.step();
      assert.equal(town.entities().filter((entity) => entity.type === "fire").length, 0);
      assert.ok(
        town.inventory("p1").some((entry) => entry.itemId === "logs"),
        "the logs are kept",
      );

      const world = worldWith({ x: 10, z: 30 });
      world.submit("p1", { type: "give", itemId: "logs", quantity: 2 });
      world.step();
      world.submit("p1", {
        type: "action",
        action: "light_fire",
        inventorySlot: slotOf(world, "p1", "logs"),
      });
      stepUntil(world, () => world.entities().some((entity) => entity.type === "fire"));
      world.submit("p1", { type: "teleport", x: 10, z: 30 });
      world.step();
      assert.equal(
        world.submit("p1", {
          type: "action",
          action: "light_fire",
          inventorySlot: slotOf(world, "p1", "logs"),
        })?.code,
        "cannot_light_here",
        "a fire already burns on the tile",
      );
    });

    /** A woodcutter `short` XP below the cap chops until it is there: the world, and what it was told. */
    const chopToCap = (short: number) => {
      const nearCap = { level: 99, xp: XP_CAP - short };
      const world = worldWith(SPAWN, { skills: { ...character("p1").skills, woodcutting: nearCap } });
      const tree = world.entities().find((entity) => entity.type === "tree")!;
      world.submit("p1", { type: "action", action: "chop", targetId: tree.id });
      const told = eventsOf(
        stepUntil(world, () => world.character("p1").skills.woodcutting.xp === XP_CAP),
        "skill:xp",
      ).map((event) => [event.data.gained, event.data.xp]);
      return { world, told };
    };

    it("tells the XP gained up to the 200M cap, and nothing once there", () => {
      const { world, told } = chopToCap(10);
      assert.deepEqual(told, [[10, XP_CAP]]);
      const logs = () => world.inventory("p1").filter((entry) => entry.itemId === "logs").length;
      const before = logs();
      // Chops on (at any standing tree: the first may have fallen) until another log comes.
      const later = stepUntil(world, () => {
        const standing = world.entities().find((entity) => entity.type === "tree" && !entity.depleted);
        if (standing) world.submit("p1", { type: "action", action: "chop", targetId: standing.id });
        return logs() > before;
      });
      assert.deepEqual(eventsOf(later, "skill:xp"), [], "nothing gained, nothing told");
    });

    it("tells a gain cut short by the cap in tenths, as XP is kept", () => {
      // 25 XP a log, 0.3 short of the cap: 0.3 is told, not 200,000,000 - 199,999,999.7 in binary
      assert.deepEqual(chopToCap(0.3).told, [[0.3, XP_CAP]]);
    });

    it("tells a cook whose fire burned out, and stops", () => {
      const world = cookBesideFire(10);
      // Late in the fire's life (logs burn 100 ticks): ten shrimps take longer than what is left of it.
      for (let tick = 0; tick < 90; tick++) world.step();
      world.submit("p1", {
        type: "action",
        action: "cook",
        inventorySlot: slotOf(world, "p1", "raw_shrimps"),
      });
      const reports = stepUntil(world, () => !world.entities().some((entity) => entity.type === "fire"));
      reports.push(world.step());
      assert.deepEqual(
        eventsOf(reports, "error").map((event) => event.data.message),
        ["The fire has gone out."],
      );
      const raw = world.inventory("p1").filter((entry) => entry.itemId === "raw_shrimps").length;
      world.step();
      assert.equal(
        world.inventory("p1").filter((entry) => entry.itemId === "raw_shrimps").length,
        raw,
        "stopped",
      );
    });

    it("cooks at its own pace, however often the command is sent again", () => {
      const world = cookBesideFire(10);
      const raw = () => world.inventory("p1").filter((entry) => entry.itemId === "raw_shrimps").length;
      for (let tick = 0; tick < 3 * COOK_TICKS; tick++) {
        world.submit("p1", {
          type: "action",
          action: "cook",
          inventorySlot: slotOf(world, "p1", "raw_shrimps"),
        });
        world.step();
      }
      assert.equal(10 - raw(), 3, "one every COOK_TICKS");
    });
  });

  describe("trade hooks", () => {
    it("refuses inventory changes while busy, and replaces the inventory after a trade", () => {
      const world = worldWith();
      world.setBusy("p1", "trade");
      assert.equal(world.submit("p1", { type: "action", action: "drop", inventorySlot: 0 })?.code, "busy");
      assert.equal(world.submit("p1", { type: "move", x: 11, z: 10 }), undefined);
      world.setBusy("p1", undefined);
      world.replaceInventory("p1", [{ slot: 5, itemId: "coins", quantity: 100 }]);
      const report = world.step();
      assert.deepEqual(world.inventory("p1"), [{ slot: 5, itemId: "coins", quantity: 100 }]);
      assert.ok(report.changedCharacters.includes("p1"));
      assert.equal(eventsOf([report], "player:sync").length, 1);
    });

    it("refuses an intent queued before a trade put another item in its slot, which stays", () => {
      const world = worldWith();
      const axeSlot = slotOf(world, "p1", "bronze_axe");
      world.submit("p1", { type: "action", action: "drop", inventorySlot: axeSlot }, 7);
      // The trade completes before the tick: the axe went to the partner, the logs received took its slot.
      world.replaceInventory("p1", [{ slot: axeSlot, itemId: "logs", quantity: 1 }]);
      const report = world.step();
      assert.deepEqual(world.inventory("p1"), [{ slot: axeSlot, itemId: "logs", quantity: 1 }]);
      assert.ok(!world.entities().some((entity) => entity.kind === "item"), "nothing dropped");
      const [refusal] = eventsOf([report], "error");
      assert.equal(refusal?.data.code, "invalid_slot");
      assert.equal(refusal?.ref, 7, "the refusal answers the message the intent came from");
    });

    it("still applies a queued intent whose slot holds the same item, fewer of it", () => {
      const world = worldWith({ x: BOOTH.x - 1, z: BOOTH.z + 1 });
      const coinsSlot = slotOf(world, "p1", "coins");
      const coins = world.inventory("p1").find((entry) => entry.slot === coinsSlot)!.quantity;
      world.submit("p1", { type: "bankDeposit", inventorySlot: coinsSlot, quantity: 5 });
      world.replaceInventory("p1", [{ slot: coinsSlot, itemId: "coins", quantity: coins - 10 }]);
      world.step();
      assert.deepEqual(world.inventory("p1"), [{ slot: coinsSlot, itemId: "coins", quantity: coins - 15 }]);
    });

    it("refuses a deposit naming the item the client saw in a slot that holds another, at once or at the tick", () => {
      const world = worldWith({ x: BOOTH.x - 1, z: BOOTH.z + 1 });
      const axeSlot = slotOf(world, "p1", "bronze_axe");
      const before = world.inventory("p1");
      // The page still shows logs there: it had not heard of the change yet.
      const now = world.submit("p1", {
        type: "bankDeposit",
        inventorySlot: axeSlot,
        quantity: 1,
        itemId: "logs",
      });
      assert.equal(now?.code, "invalid_slot");
      assert.match(now?.message ?? "", /holds bronze_axe, not logs/);
      // Named right when sent, another item there by the tick (a trade completed between).
      world.submit(
        "p1",
        { type: "bankDeposit", inventorySlot: axeSlot, quantity: 1, itemId: "bronze_axe" },
        4,
      );
      world.replaceInventory("p1", [
        ...before.filter((entry) => entry.slot !== axeSlot),
        { slot: axeSlot, itemId: "logs", quantity: 1 },
      ]);
      const [refusal] = eventsOf([world.step()], "error");
      assert.equal(refusal?.data.code, "invalid_slot");
      assert.equal(refusal?.ref, 4);
      assert.deepEqual(world.peek("p1").bank, [], "nothing banked");
      // The item named is the one there: deposited.
      world.submit("p1", { type: "bankDeposit", inventorySlot: axeSlot, quantity: 1, itemId: "logs" });
      world.step();
      assert.deepEqual(world.peek("p1").bank, [{ itemId: "logs", quantity: 1 }]);
      // A drop and a use say what they saw as well.
      const coinsSlot = slotOf(world, "p1", "coins");
      const drop = {
        type: "action",
        action: "drop",
        inventorySlot: coinsSlot,
        itemId: "bronze_axe",
      } as const;
      assert.equal(world.submit("p1", drop)?.code, "invalid_slot");
      assert.equal(
        world.submit("p1", { type: "use", inventorySlot: coinsSlot, itemId: "shrimps" })?.code,
        "invalid_slot",
      );
      assert.ok(!world.entities().some((entity) => entity.kind === "item"), "nothing dropped");
    });

    it("measures the distance between two players", () => {
      const world = worldWith();
      world.join(character("p2", { position: { x: SPAWN.x + 2, z: SPAWN.z + 1 } }));
      assert.equal(world.distance("p1", "p2"), 2);
      assert.equal(world.distance("p1", "nobody"), undefined);
    });
  });

  describe("ticks", () => {
    it("times every phase with the injected clock, in order", () => {
      let clock = 0;
      const world = makeWorld({ now: () => clock++ });
      const report = world.step();
      assert.deepEqual(Object.keys(report.phaseMs), [
        "input",
        "npcs",
        "players",
        "combat",
        "skills",
        "items",
      ]);
      assert.ok(Object.values(report.phaseMs).every((ms) => ms === 1));
    });
  });
});
