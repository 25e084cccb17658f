// Monsters in the running world: whom they pick a fight with, how far they chase, how often they
// swing, and when a killed one comes back.
import assert from "node:assert/strict";
import { seededRandom } from "../../src/game/random.js";
import type { GameData, NpcDef, SkillName, Tile } from "../../src/game/types.js";
import { World } from "../../src/game/world.js";
import { COMBAT_LOGOUT_TICKS } from "../../src/game/world-combat.js";
import type { TickReport } from "../../src/game/world-types.js";
import { skillsAt } from "./fixtures.js";
import { character, GOBLIN_SPAWN, gameData, makeWorld, stepUntil } from "./world-fixture.js";

/** The fixture world with its goblin changed by `changes` and, optionally, its one area made safe. */
function worldWithGoblin(changes: (goblin: NpcDef) => NpcDef, safeZone = false): World {
  const data = gameData();
  const goblin = changes(data.npcs.get("goblin")!);
  const tuned: GameData = {
    ...data,
    npcs: new Map([...data.npcs, ["goblin", goblin]]),
    areas: data.areas.map((area) => ({ ...area, safeZone })),
  };
  return new World({ data: tuned, random: seededRandom(5) });
}

const aggressive = (goblin: NpcDef): NpcDef => ({ ...goblin, aggressive: true, aggroRange: 3 });

/** A fresh character standing at `at`, its combat skills changed by `levels`. */
function joinAt(world: World, at: Tile, levels: Partial<Record<SkillName, number>> = {}): void {
  world.join(character("p1", { position: { ...at }, skills: skillsAt(1, { constitution: 10, ...levels }) }));
}

function hitsBy(reports: TickReport[], attackerId: string): number[] {
  return reports.flatMap((report) =>
    report.events.some((event) => event.event === "combat:hit" && event.data.attackerId === attackerId)
      ? [report.tick]
      : [],
  );
}

function goblinId(world: World): string {
  return world.entities().find((entity) => entity.type === "goblin")!.id;
}

function steps(world: World, ticks: number): TickReport[] {
  return Array.from({ length: ticks }, () => world.step());
}

const NEAR_GOBLIN: Tile = { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 2 };

describe("World monsters", () => {
  describe("aggression", () => {
    // The goblin is combat level 2, so it picks on players up to level 4.
    it("attacks a player of up to twice its combat level", () => {
      const world = worldWithGoblin(aggressive);
      // attack 4: 0.25 * (1 + 10 + 0) + 0.325 * (4 + 1) = 4.375 → level 4
      joinAt(world, NEAR_GOBLIN, { attack: 4 });
      assert.ok(hitsBy(steps(world, 10), goblinId(world)).length > 0, "the goblin attacked");
    });

    it("leaves alone a player of more than twice its combat level", () => {
      const world = worldWithGoblin(aggressive);
      // attack 7: 0.25 * 11 + 0.325 * 8 = 5.35 → level 5
      joinAt(world, NEAR_GOBLIN, { attack: 7 });
      const reports = steps(world, 20);
      assert.deepEqual(hitsBy(reports, goblinId(world)), []);
      assert.deepEqual(world.entity(goblinId(world))?.position, GOBLIN_SPAWN, "it never set off");
    });

    it("leaves alone a player in a safe zone", () => {
      const world = worldWithGoblin(aggressive, true);
      joinAt(world, NEAR_GOBLIN);
      assert.deepEqual(hitsBy(steps(world, 20), goblinId(world)), []);
    });

    it("gives up a chase past its leash and walks back to its spawn", () => {
      const world = worldWithGoblin(aggressive);
      joinAt(world, NEAR_GOBLIN);
      const goblin = goblinId(world);
      stepUntil(world, () => world.entity(goblin)!.position.z !== GOBLIN_SPAWN.z, 10);
      // Walks straight away to 15 tiles from the goblin's spawn; its leash is 10.
      world.submit("p1", { type: "move", x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 15 });
      const reports = steps(world, 40);
      assert.deepEqual(world.entity(goblin)?.position, GOBLIN_SPAWN);
      assert.deepEqual(hitsBy(reports.slice(20), goblin), [], "the chase is over");
    });
  });

  it("swings once per attack speed: an unarmed player every 4 ticks, a monster at its own speed", () => {
    // 99 hitpoints: nobody dies within the ticks watched.
    const world = worldWithGoblin((goblin) => ({
      ...goblin,
      combat: { ...goblin.combat!, constitution: 99, attackSpeed: 6 },
    }));
    joinAt(world, { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 });
    world.submit("p1", { type: "action", action: "attack", targetId: goblinId(world) });
    const reports = steps(world, 13);
    // Both swing in the first tick (the goblin strikes back at once), then at their own pace.
    assert.deepEqual(hitsBy(reports, "p1"), [1, 5, 9, 13]);
    assert.deepEqual(hitsBy(reports, goblinId(world)), [1, 7, 13]);
  });

  it("puts off a player's next swing by 3 ticks for each bite of food", () => {
    const world = worldWithGoblin((goblin) => ({
      ...goblin,
      combat: { ...goblin.combat!, constitution: 99 },
    }));
    world.join(
      character("p1", {
        position: { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 },
        skills: skillsAt(1, { constitution: 10, defence: 99 }),
        inventory: [
          { slot: 0, itemId: "shrimps", quantity: 1 },
          { slot: 1, itemId: "shrimps", quantity: 1 },
        ],
      }),
    );
    world.submit("p1", { type: "action", action: "attack", targetId: goblinId(world) });
    const reports = steps(world, 6);
    // Between swings (the next due at 9): it comes at 12.
    world.submit("p1", { type: "use", inventorySlot: 0 });
    reports.push(...steps(world, 9));
    // On the tick the next swing is due (16): it comes at 19.
    world.submit("p1", { type: "use", inventorySlot: 1 });
    reports.push(...steps(world, 8));
    assert.deepEqual(hitsBy(reports, "p1"), [1, 5, 12, 19, 23]);
  });

  it("brings a killed monster back at its spawn with full health after its respawn time", () => {
    const world = worldWithGoblin((goblin) => ({ ...goblin, respawnTicks: 30 }));
    joinAt(world, { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 }, { attack: 60, strength: 60 });
    const goblin = goblinId(world);
    world.submit("p1", { type: "action", action: "attack", targetId: goblin });
    const killed = stepUntil(world, () => world.entity(goblin) === undefined).at(-1)!.tick;
    while (world.tick < killed + 29) world.step();
    assert.equal(world.entity(goblin), undefined, "still dead 29 ticks on");
    const back = world.step();
    assert.equal(back.tick, killed + 30);
    const respawned = world.entity(goblin);
    assert.deepEqual(respawned?.position, GOBLIN_SPAWN);
    assert.equal(respawned?.health, 5);
    assert.equal(respawned?.maxHealth, 5);
  });

  describe("regaining health (a hitpoint a minute, as in RuneScape)", () => {
    /** Each tick of `ticks` more on which `health()` changed, with its new value. */
    function healthChanges(world: World, ticks: number, health: () => number): [number, number][] {
      const changes: [number, number][] = [];
      let last = health();
      for (let step = 0; step < ticks; step++) {
        const { tick } = world.step();
        if (health() === last) continue;
        last = health();
        changes.push([tick, last]);
      }
      return changes;
    }

    it("heals a monster left hurt by a hitpoint on each 100th tick, drawn anew, up to its maximum", () => {
      const world = worldWithGoblin((goblin) => ({
        ...goblin,
        combat: { ...goblin.combat!, constitution: 7 },
      }));
      // Strength 1: blows of 1 at most, so the goblin is worn down without being killed.
      joinAt(world, { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 }, { attack: 60 });
      const goblin = goblinId(world);
      const health = () => world.entity(goblin)!.health!;
      world.submit("p1", { type: "action", action: "attack", targetId: goblin });
      stepUntil(world, () => health() === 5);
      // Run off past its leash (10): nobody strikes it any more.
      world.submit("p1", { type: "move", x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 15 });
      assert.ok(world.tick < 60, "worn down well before the first 100th tick");
      const healed = healthChanges(world, 500 - world.tick, health);
      assert.deepEqual(healed, [
        [100, 6],
        [200, 7],
      ]);
      const drawn = stepUntil(world, () => world.tick === 600)
        .filter((report) => report.changedEntities.includes(goblin))
        .map((report) => report.tick);
      assert.ok(!drawn.includes(600), "no change to draw once whole");
    });

    it("heals a hurt player by a hitpoint on each 100th tick, up to its maximum", () => {
      const world = makeWorld();
      world.join(character("p1", { health: 7 }));
      const health = () => world.playerSync("p1").health;
      assert.deepEqual(healthChanges(world, 500, health), [
        [100, 8],
        [200, 9],
        [300, 10],
      ]);
    });
  });

  describe("being in combat (what keeps a player in the world after its session ends)", () => {
    it("lasts from a monster's swing until 17 ticks after its last one", () => {
      const world = worldWithGoblin(aggressive);
      joinAt(world, NEAR_GOBLIN, { attack: 4 });
      assert.equal(world.inCombat("p1"), false);
      const goblin = goblinId(world);
      let lastSwing: number | undefined;
      const states = new Set<boolean>();
      for (let tick = 0; tick < 80; tick++) {
        // Run off past the goblin's leash: its swings stop, and the combat with them.
        if (tick === 20) world.submit("p1", { type: "move", x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 15 });
        const report = world.step();
        if (hitsBy([report], goblin).length > 0) lastSwing = report.tick;
        const expected = lastSwing !== undefined && report.tick - lastSwing < COMBAT_LOGOUT_TICKS;
        assert.equal(world.inCombat("p1"), expected, `tick ${report.tick}, last swing ${lastSwing}`);
        states.add(expected);
      }
      assert.deepEqual(states, new Set([true, false]), "in combat, then out of it");
      assert.equal(COMBAT_LOGOUT_TICKS, 17, "10 seconds of 600 ms ticks, rounded up");
    });

    it("ends at death: the player respawns out of the fight", () => {
      const world = worldWithGoblin(aggressive);
      world.join(character("p1", { position: { ...NEAR_GOBLIN }, health: 1 }));
      const died = stepUntil(world, () => world.character("p1").health === 10, 100);
      assert.ok(died.some((report) => report.deaths.includes("p1")));
      assert.equal(world.inCombat("p1"), false);
    });
  });
});
