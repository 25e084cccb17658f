// Prayers: switching on, one per stat, drain to nothing, recharge, and their boost in a fight.
import assert from "node:assert/strict";
import type { CharacterState } from "../../src/game/character-state.js";
import { drainOneTick, PRAYER_REGEN_TICKS, prayerProblem, switchOn } from "../../src/game/prayer.js";
import { seededRandom } from "../../src/game/random.js";
import type { ItemDef, PrayerDef } from "../../src/game/types.js";
import { World } from "../../src/game/world.js";
import type { TickReport } from "../../src/game/world-types.js";
import { skillsAt } from "./fixtures.js";
import { character, GOBLIN_SPAWN, gameData, SPAWN } from "./world-fixture.js";

const prayer = (id: string, level: number, drain: number, boosts: Partial<PrayerDef>): PrayerDef => ({
  id,
  name: id,
  level,
  drain,
  ...boosts,
});
const SKIN = prayer("bark_skin", 1, 5, { defence: 1.05 });
const EMBER = prayer("ember_strength", 4, 5, { strength: 1.05 });
const STONE = prayer("stone_skin", 10, 10, { defence: 1.1 });
const MIGHT = prayer("giant_might", 1, 10, { strength: 10 });

describe("Prayer rules", () => {
  it("needs the prayer's level and a point to spare", () => {
    assert.equal(prayerProblem(STONE, 10, 1), undefined);
    assert.deepEqual(prayerProblem(STONE, 9, 9), {
      code: "level_too_low",
      message: "You need prayer level 10 to use stone_skin.",
    });
    assert.equal(prayerProblem(SKIN, 10, 0)?.code, "no_prayer_points");
  });

  it("keeps one prayer per stat: a new one replaces the one boosting the same stat", () => {
    const ids = (prayers: PrayerDef[]) => prayers.map((one) => one.id);
    assert.deepEqual(ids(switchOn([SKIN], EMBER)), ["bark_skin", "ember_strength"]);
    assert.deepEqual(ids(switchOn([SKIN, EMBER], STONE)), ["ember_strength", "stone_skin"]);
    assert.deepEqual(ids(switchOn([SKIN], SKIN)), ["bark_skin"]);
  });

  it("drains each prayer's points a minute, carrying the part of a point owed", () => {
    // 5 points a minute: one every 20 ticks.
    let state = { points: 10, carried: 0 };
    const lost: number[] = [];
    for (let tick = 1; tick <= 60; tick++) {
      const before = state.points;
      state = drainOneTick(state.points, state.carried, [SKIN]);
      if (state.points < before) lost.push(tick);
    }
    assert.deepEqual(lost, [20, 40, 60]);
    // 15 a minute together: 15 points in 100 ticks, never below zero.
    state = { points: 99, carried: 0 };
    for (let tick = 0; tick < 100; tick++) state = drainOneTick(state.points, state.carried, [SKIN, STONE]);
    assert.deepEqual(state, { points: 84, carried: 0 });
    assert.equal(drainOneTick(0, 99, [STONE]).points, 0);
  });

  it("makes each point last (60 + 2 x bonus) / 60 as long with a prayer bonus worn", () => {
    // 5 points a minute, +8: a point every 25 1/3 ticks instead of 20.
    let state = { points: 10, carried: 0 };
    const lost: number[] = [];
    for (let tick = 1; tick <= 80; tick++) {
      const before = state.points;
      state = drainOneTick(state.points, state.carried, [SKIN], 8);
      if (state.points < before) lost.push(tick);
    }
    assert.deepEqual(lost, [26, 51, 76]);
  });
});

function prayingWorld(changes: Partial<CharacterState> = {}): World {
  const data = gameData();
  const world = new World({
    data: { ...data, prayers: new Map([SKIN, EMBER, STONE, MIGHT].map((one) => [one.id, one])) },
    random: seededRandom(9),
  });
  world.join(character("p1", { position: { ...SPAWN }, ...changes }));
  return world;
}

function stepFor(world: World, ticks: number): TickReport[] {
  return Array.from({ length: ticks }, () => world.step());
}

describe("Prayers in the world", () => {
  it("switches a prayer on and off, the player:sync answering each", () => {
    const world = prayingWorld({ skills: skillsAt(10, { constitution: 10 }) });
    assert.equal(world.submit("p1", { type: "pray", prayerId: "stone_skin", active: true }, 3), undefined);
    const [on] = world.step().events.filter((event) => event.event === "player:sync");
    assert.deepEqual(on?.data, { ...world.playerSync("p1"), prayer: { points: 10, active: ["stone_skin"] } });
    assert.deepEqual(on && "refs" in on ? on.refs : [], [3]);
    world.submit("p1", { type: "pray", prayerId: "stone_skin", active: false });
    world.step();
    assert.deepEqual(world.playerSync("p1").prayer.active, []);
    assert.equal(world.submit("p1", { type: "pray", prayerId: "smite", active: true })?.code, "not_found");
  });

  it("switches every prayer off when the points run out, and recharges them a point a minute after", () => {
    const world = prayingWorld({ skills: skillsAt(10, { constitution: 10 }), prayerPoints: 1 });
    world.submit("p1", { type: "pray", prayerId: "stone_skin", active: true });
    const reports = stepFor(world, 11);
    const errors = reports.flatMap((report) => report.events.filter((event) => event.event === "error"));
    assert.deepEqual(
      errors.map((event) => event.data),
      [{ code: "no_prayer_points", message: "You have run out of prayer points." }],
    );
    assert.deepEqual(world.playerSync("p1").prayer, { points: 0, active: [] });
    assert.equal(
      world.submit("p1", { type: "pray", prayerId: "bark_skin", active: true })?.code,
      "no_prayer_points",
    );
    const ranOut = reports.find((report) => report.events.some((event) => event.event === "error"))!.tick;
    while (world.tick < ranOut + PRAYER_REGEN_TICKS - 1) world.step();
    assert.equal(world.playerSync("p1").prayer.points, 0, "not before a whole minute without prayer");
    world.step();
    assert.equal(world.playerSync("p1").prayer.points, 1);
    stepFor(world, PRAYER_REGEN_TICKS);
    assert.equal(world.playerSync("p1").prayer.points, 2);
  });

  it("recharges nothing for a prayer switched off only around the moment of a recharge", () => {
    const world = prayingWorld({ skills: skillsAt(30, { constitution: 10 }), prayerPoints: 25 });
    world.submit("p1", { type: "pray", prayerId: "bark_skin", active: true });
    while (world.tick < 300) {
      // Off for every hundredth tick only.
      if ((world.tick + 1) % PRAYER_REGEN_TICKS === 0)
        world.submit("p1", { type: "pray", prayerId: "bark_skin", active: false });
      if (world.tick % PRAYER_REGEN_TICKS === 0 && world.tick > 0)
        world.submit("p1", { type: "pray", prayerId: "bark_skin", active: true });
      world.step();
    }
    // 297 ticks at 5 points a minute drain 14 points (and most of a 15th); the three idle ticks give none back.
    assert.equal(world.playerSync("p1").prayer.points, 11);
  });

  it("drains a prayer switched off and on again in one tick as if it had stayed on", () => {
    // Switching off must not forgive the part of a point owed: sent together every 19 ticks, the two
    // would keep Bark Skin (a point every 20 ticks) on without ever spending one.
    const world = prayingWorld({ skills: skillsAt(10, { constitution: 10 }) });
    world.submit("p1", { type: "pray", prayerId: "bark_skin", active: true });
    for (let flick = 0; flick < 10; flick++) {
      stepFor(world, 19);
      world.submit("p1", { type: "pray", prayerId: "bark_skin", active: false });
      world.submit("p1", { type: "pray", prayerId: "bark_skin", active: true });
    }
    world.step();
    // On for 191 ticks: 9 points at 5 a minute.
    assert.deepEqual(world.playerSync("p1").prayer, { points: 1, active: ["bark_skin"] });
  });

  it("boosts the player's hits while on", () => {
    const maxHitOver = (pray: boolean) => {
      const world = prayingWorld({
        position: { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 },
        skills: skillsAt(1, { constitution: 99, attack: 99 }),
        health: 990,
      });
      if (pray) world.submit("p1", { type: "pray", prayerId: "giant_might", active: true });
      world.step();
      let most = 0;
      for (let fight = 0; fight < 10; fight++) {
        const goblin = world.entities().find((entity) => entity.type === "goblin" && entity.health);
        if (!goblin) {
          world.step();
          continue;
        }
        world.submit("p1", { type: "action", action: "attack", targetId: goblin.id });
        for (const report of stepFor(world, 20))
          for (const event of report.events)
            if (event.event === "combat:hit" && event.data.attackerId === "p1")
              most = Math.max(most, event.data.damage);
      }
      return most;
    };
    // Unboosted, strength 1 hits at most 1 (floor(0.5 + 9 * 64 / 640)); ten times the strength, more.
    assert.equal(maxHitOver(false), 1);
    assert.ok(maxHitOver(true) > 1);
  });

  it("goes off at death", () => {
    const world = prayingWorld({ position: { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 }, health: 1 });
    world.submit("p1", { type: "pray", prayerId: "bark_skin", active: true });
    world.step();
    assert.deepEqual(world.playerSync("p1").prayer.active, ["bark_skin"]);
    const goblin = world.entities().find((entity) => entity.type === "goblin")!;
    world.submit("p1", { type: "action", action: "attack", targetId: goblin.id });
    let died = false;
    for (let tick = 0; tick < 200 && !died; tick++) died = world.step().deaths.includes("p1");
    assert.ok(died, "the goblin kills a player at 1 hitpoint");
    assert.deepEqual(world.playerSync("p1").prayer.active, []);
  });
});

describe("Prayers in the world: a worn prayer bonus", () => {
  it("slows the drain of a player wearing it", () => {
    const symbol: ItemDef = {
      id: "holy_symbol",
      name: "Holy symbol",
      type: "armor",
      value: 300,
      stackable: false,
      tradeable: true,
      equipSlot: "neck",
      bonuses: { prayer: 8 },
    };
    const drainedIn200Ticks = (equipment: CharacterState["equipment"]) => {
      const data = gameData();
      const world = new World({
        data: {
          ...data,
          items: new Map([...data.items, [symbol.id, symbol]]),
          prayers: new Map([[STONE.id, STONE]]),
        },
        random: seededRandom(3),
      });
      world.join(
        character("p1", {
          position: { ...SPAWN },
          skills: skillsAt(1, { prayer: 40, constitution: 10 }),
          equipment,
        }),
      );
      assert.equal(world.submit("p1", { type: "pray", prayerId: STONE.id, active: true }), undefined);
      stepFor(world, 200);
      return 40 - (world.character("p1").prayerPoints ?? 40);
    };
    // 10 points a minute: 20 in 200 ticks bare-necked, 200 x 10 / 126 2/3 = 15 with +8.
    assert.deepEqual([drainedIn200Ticks({}), drainedIn200Ticks({ neck: "holy_symbol" })], [20, 15]);
  });
});
