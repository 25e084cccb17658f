// Gathering, firemaking and XP in the running world: depletion and regrowth, level requirements,
// a fire's life, a level-up at its exact threshold, and the XP of a kill.
import assert from "node:assert/strict";
import type { SkillState } from "../../src/game/character-state.js";
import { seededRandom } from "../../src/game/random.js";
import type { GameData, GatheringDef, SkillName, ToolDef } from "../../src/game/types.js";
import { World } from "../../src/game/world.js";
import type { TickReport } from "../../src/game/world-types.js";
import { sequence, skillsAt } from "./fixtures.js";
import { character, GOBLIN_SPAWN, gameData, SPAWN, stepUntil } from "./world-fixture.js";

/** The fixture world with the tree's gathering rule changed by `changes`, and extra tools. */
function worldWithTree(changes: Partial<GatheringDef>, tools: ToolDef[] = []): World {
  const data = gameData();
  const tuned: GameData = {
    ...data,
    gathering: new Map([...data.gathering, ["tree", { ...data.gathering.get("tree")!, ...changes }]]),
    tools: new Map([...data.tools, ...tools.map((tool) => [tool.itemId, tool] as const)]),
  };
  return new World({ data: tuned, random: seededRandom(11) });
}

function treeId(world: World): string {
  return world.entities().find((entity) => entity.type === "tree")!.id;
}

function skillXp(reports: TickReport[], skill: SkillName) {
  return reports.flatMap((report) =>
    report.events.flatMap((event) =>
      event.event === "skill:xp" && event.data.skill === skill ? [event.data] : [],
    ),
  );
}

function withSkills(
  levels: Partial<Record<SkillName, number>>,
  xp: Partial<Record<SkillName, SkillState>> = {},
) {
  return { ...skillsAt(1, { constitution: 10, ...levels }), ...xp };
}

describe("World skills", () => {
  it("fells a tree that then refuses axes until it grows back after its respawn time", () => {
    const world = worldWithTree({ depleteChance: 1, respawnTicks: 20 });
    world.join(character("p1", { position: { ...SPAWN } }));
    const tree = treeId(world);
    world.submit("p1", { type: "action", action: "chop", targetId: tree });
    const felled = stepUntil(world, () => world.entity(tree)?.depleted === true).at(-1)!.tick;
    assert.equal(world.inventory("p1").filter((entry) => entry.itemId === "logs").length, 1);
    assert.equal(world.submit("p1", { type: "action", action: "chop", targetId: tree })?.code, "depleted");
    while (world.tick < felled + 19) world.step();
    assert.equal(world.entity(tree)?.depleted, true, "still felled 19 ticks on");
    assert.equal(world.step().tick, felled + 20);
    assert.equal(world.entity(tree)?.depleted, false);
    assert.equal(world.submit("p1", { type: "action", action: "chop", targetId: tree }), undefined);
  });

  it("refuses a resource above the player's level, and an axe above it as a level to reach", () => {
    const steelAxe: ToolDef = {
      itemId: "steel_axe",
      kind: "axe",
      skill: "woodcutting",
      tier: 3,
      levelRequired: 6,
    };
    const world = worldWithTree({ levelRequired: 15 }, [steelAxe]);
    world.join(character("p1", { position: { ...SPAWN }, skills: withSkills({ woodcutting: 14 }) }));
    assert.equal(
      world.submit("p1", { type: "action", action: "chop", targetId: treeId(world) })?.code,
      "level_too_low",
    );

    const axeless = worldWithTree({}, [steelAxe]);
    const inventory = [{ slot: 0, itemId: "steel_axe", quantity: 1 }];
    axeless.join(
      character("p1", { position: { ...SPAWN }, inventory, skills: withSkills({ woodcutting: 5 }) }),
    );
    // Held, the steel axe is no tool to use but a level to reach (the skill-unlocks list names it).
    const refusal = axeless.submit("p1", { type: "action", action: "chop", targetId: treeId(axeless) });
    assert.equal(refusal?.code, "level_too_low");
    assert.match(refusal?.message ?? "", /^You need woodcutting level 6 to use the /);
    axeless.replaceInventory("p1", []);
    assert.equal(
      axeless.submit("p1", { type: "action", action: "chop", targetId: treeId(axeless) })?.code,
      "no_tool",
    );
  });

  it("reaches level 2 at exactly 83 XP", () => {
    // 58 XP and a 25-XP log make 83, level 2's threshold; 57 would make 82 and stay level 1.
    const world = worldWithTree({ depleteChance: 0 });
    world.join(
      character("p1", {
        position: { ...SPAWN },
        skills: withSkills({}, { woodcutting: { level: 1, xp: 58 } }),
      }),
    );
    world.submit("p1", { type: "action", action: "chop", targetId: treeId(world) });
    const reports = stepUntil(world, () => world.character("p1").skills.woodcutting.xp > 58);
    assert.deepEqual(skillXp(reports, "woodcutting"), [
      { skill: "woodcutting", xp: 83, gained: 25, level: 2 },
    ]);
    assert.deepEqual(world.character("p1").skills.woodcutting, { level: 2, xp: 83 });
  });

  it("shows others a player's new maximum health when its constitution levels up", () => {
    // Level 11 is 1,358 XP. An unarmed blow of 1 (strength 1: 9 * 64 / 640 = 0.9 → floor(1.4) = 1) gives
    // 1.33 → 1.3 constitution XP, which 1,356.7 needs. The rolls: the player's sure hit, its damage of 1,
    // then the goblin's miss, so nothing but the level changes the player as others draw it.
    const world = new World({ data: gameData(), random: sequence(0, 0.99, 0.99) });
    const constitution = { level: 10, xp: 1_356.7 };
    world.join(
      character("p1", {
        position: { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 },
        skills: withSkills({}, { constitution }),
      }),
    );
    world.step();
    const goblin = world.entities().find((entity) => entity.type === "goblin")!.id;
    world.submit("p1", { type: "action", action: "attack", targetId: goblin });
    const report = world.step();
    assert.deepEqual(world.character("p1").skills.constitution, { level: 11, xp: 1_358 });
    assert.ok(report.changedEntities.includes("p1"), "the player is drawn anew");
    assert.equal(world.entity("p1")?.maxHealth, 11);
  });

  it("raises a player's current health with each constitution level gained", () => {
    // As above: a sure hit of 1 takes constitution from 1,356.7 XP to level 11; the goblin misses.
    const world = new World({ data: gameData(), random: sequence(0, 0.99, 0.99) });
    world.join(
      character("p1", {
        position: { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 },
        skills: withSkills({}, { constitution: { level: 10, xp: 1_356.7 } }),
        health: 7,
      }),
    );
    world.step();
    const goblin = world.entities().find((entity) => entity.type === "goblin")!.id;
    world.submit("p1", { type: "action", action: "attack", targetId: goblin });
    world.step();
    assert.equal(world.character("p1").skills.constitution.level, 11);
    assert.deepEqual([world.entity("p1")?.health, world.entity("p1")?.maxHealth], [8, 11]);
  });

  it("lets a fire burn for its logs' burn time, then go out", () => {
    const world = worldWithTree({});
    world.join(character("p1", { position: { x: 10, z: 30 } }));
    world.submit("p1", { type: "give", itemId: "logs", quantity: 1 });
    world.step();
    const logs = world.inventory("p1").find((entry) => entry.itemId === "logs")!;
    world.submit("p1", { type: "action", action: "light_fire", inventorySlot: logs.slot });
    const lit = stepUntil(world, () => world.entities().some((entity) => entity.type === "fire")).at(
      -1,
    )!.tick;
    // The fixture's logs burn 100 ticks.
    while (world.tick < lit + 99) world.step();
    assert.ok(
      world.entities().some((entity) => entity.type === "fire"),
      "still burning 99 ticks on",
    );
    assert.equal(world.step().tick, lit + 100);
    assert.ok(!world.entities().some((entity) => entity.type === "fire"), "out after 100");
  });

  it("gives the XP of a kill for the damage dealt, not for a blow beyond the monster's last hitpoint", () => {
    // Strength 99, aggressive, bronze sword (+5): 99 + 3 + 8 = 110; 110 * 69 / 640 = 11.86 → floor(12.36) = 12.
    // The rolls: a sure hit, then the top damage (floor(0.99 * 13) = 12), then the goblin's two drops.
    const world = new World({ data: gameData(), random: sequence(0, 0.99, 0, 0, 0, 0) });
    world.join(
      character("p1", {
        position: { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 1 },
        skills: withSkills({ strength: 99 }),
        combatStyle: "aggressive",
      }),
    );
    const sword = world.inventory("p1").find((entry) => entry.itemId === "bronze_sword")!;
    world.submit("p1", { type: "use", inventorySlot: sword.slot });
    world.step();
    const goblin = world.entities().find((entity) => entity.type === "goblin")!.id;
    world.submit("p1", { type: "action", action: "attack", targetId: goblin });
    const [blow] = world.step().events.filter((event) => event.event === "combat:hit");
    assert.deepEqual(blow?.data, { attackerId: "p1", targetId: goblin, damage: 5, targetHealth: 0 });
    // Level 99 is 13,034,431 XP; 4 XP for each of the goblin's 5 hitpoints is 20, not 4 * 12 = 48.
    assert.equal(world.character("p1").skills.strength.xp, 13_034_431 + 20);
    assert.equal(world.character("p1").skills.attack.xp, 0);
  });
});
