import assert from "node:assert/strict";
import { seededRandom } from "../../src/game/random.js";
import type { GameData, NpcDef } from "../../src/game/types.js";
import { World } from "../../src/game/world.js";
import { COMBAT_LOGOUT_LIMIT_TICKS, CombatLogouts } from "../../src/rooms/combat-logouts.js";
import { skillsAt } from "../game/fixtures.js";
import { character, GOBLIN_SPAWN, gameData, stepUntil } from "../game/world-fixture.js";

/** A player fighting a goblin that cannot be worn down: a fight that does not end. */
function endlessFight(): World {
  const data = gameData();
  const goblin = data.npcs.get("goblin")!;
  const tough: NpcDef = { ...goblin, combat: { ...goblin.combat!, constitution: 10_000 } };
  const world = new World({
    data: { ...data, npcs: new Map([...data.npcs, ["goblin", tough]]) } satisfies GameData,
    random: seededRandom(5),
  });
  const at = { x: GOBLIN_SPAWN.x, z: GOBLIN_SPAWN.z - 2 };
  world.join(character("p1", { position: at, skills: skillsAt(99), health: 99 }));
  const target = world.entities().find((entity) => entity.type === "goblin")!;
  assert.equal(world.submit("p1", { type: "action", action: "attack", targetId: target.id }), undefined);
  return world;
}

describe("CombatLogouts", () => {
  it("counts the minute a fight keeps a player from its latest logout, not an earlier one", () => {
    const world = endlessFight();
    stepUntil(world, () => world.inCombat("p1"));
    const logouts = new CombatLogouts(world);
    const left: string[] = [];
    const step = () => {
      world.step();
      logouts.afterTick();
    };
    assert.ok(logouts.keep("p1", () => left.push("the first session")));
    const first = world.tick;
    // Back at once (its new session takes the player over), it fights on most of a minute and logs out again.
    while (world.tick < first + COMBAT_LOGOUT_LIMIT_TICKS - 10) step();
    assert.ok(world.inCombat("p1"), "the fight goes on");
    assert.ok(logouts.keep("p1", () => left.push("the second session")));
    const second = world.tick;
    while (world.tick < second + COMBAT_LOGOUT_LIMIT_TICKS - 1) {
      step();
      assert.deepEqual(
        left,
        [],
        `let go at tick ${world.tick}, ${world.tick - second} after its last logout`,
      );
    }
    assert.ok(world.inCombat("p1"), "still in the fight");
    step();
    assert.deepEqual(left.sort(), ["the first session", "the second session"], "a minute after the logout");
  });
});
