import assert from "node:assert/strict";
import { newCharacter } from "../../src/game/character.js";
import type { CharacterState } from "../../src/game/character-state.js";
import { npcCombatLevel } from "../../src/game/combat-level.js";
import { seededRandom } from "../../src/game/random.js";
import type { GameData } from "../../src/game/types.js";
import { inViewFrom } from "../../src/game/view-index.js";
import { World } from "../../src/game/world.js";
import { validateManifests } from "../../src/manifests/validate.js";
import { shippedTexts } from "../manifests/helpers.js";

describe("World on the shipped manifests", () => {
  let data: GameData;

  before(async () => {
    const validation = validateManifests(await shippedTexts());
    assert.ok(validation.ok, "the shipped manifests validate");
    data = validation.data;
  });

  it("gives every monster the combat level its stats make, which aggression compares with", () => {
    const wrong = [...data.npcs.values()]
      .filter((npc) => npc.combat !== undefined && npc.combatLevel !== npcCombatLevel(npc.combat))
      .map((npc) => `${npc.id}: ${npc.combatLevel}, stats make ${npcCombatLevel(npc.combat!)}`);
    assert.deepEqual(wrong, []);
  });

  it("lets a new character chop the nearest tree into logs", () => {
    const world = new World({ data, random: seededRandom(1) });
    const newcomer = newCharacter("c1", "Newcomer", data);
    world.join(newcomer);
    const tree = world
      .entities()
      .find(
        (entity) =>
          inViewFrom(newcomer.position, entity.position) &&
          entity.kind === "resource" &&
          data.gathering.get(entity.type)?.skill === "woodcutting",
      );
    assert.ok(tree, "a tree in view of the spawn point");
    assert.equal(world.submit("c1", { type: "action", action: "chop", targetId: tree.id }), undefined);
    const logs = data.gathering.get(tree.type)!.itemId;
    for (let tick = 0; tick < 500 && !world.inventory("c1").some((entry) => entry.itemId === logs); tick++)
      world.step();
    assert.ok(world.inventory("c1").some((entry) => entry.itemId === logs));
  });

  const monsterInView = (world: World, player: CharacterState) =>
    world
      .entities()
      .find(
        (entity) =>
          entity.kind === "npc" &&
          data.npcs.get(entity.type)?.role === "monster" &&
          inViewFrom(player.position, entity.position),
      );

  it("fires the worn kind of arrow at a monster, drawing from the pack first, until none is left", () => {
    const world = new World({ data, random: seededRandom(2) });
    const archer = newCharacter("c1", "Archer", data);
    archer.equipment = { ...archer.equipment, weapon: "shortbow", ammo: "bronze_arrow" };
    archer.inventory = [
      ...archer.inventory.filter((entry) => entry.slot !== 27),
      { slot: 27, itemId: "bronze_arrow", quantity: 1 },
    ];
    world.join(archer);
    const monster = monsterInView(world, archer);
    assert.ok(monster, "a monster in view of the spawn point");
    assert.equal(world.submit("c1", { type: "action", action: "attack", targetId: monster.id }), undefined);
    const shots: number[] = [];
    const refusals: string[] = [];
    for (let tick = 0; tick < 100 && refusals.length === 0; tick++) {
      for (const { event, data: payload } of world.step().events) {
        if (event === "combat:hit" && payload.attackerId === "c1") shots.push(tick);
        if (event === "error") refusals.push(payload.code);
      }
    }
    assert.equal(shots.length, 2, "two arrows, two shots");
    assert.deepEqual(refusals, ["no_ammo"]);
    // The monster fights on; a player with an empty bow does not strike back, so is not told again.
    const later = Array.from({ length: 60 }, () => world.step().events).flat();
    assert.ok(
      later.some((e) => e.event === "combat:hit" && e.data.targetId === "c1"),
      "the monster fights on",
    );
    assert.equal(later.filter((e) => e.event === "error").length, 0);
    assert.equal(world.character("c1").equipment.ammo, undefined, "the worn arrow went last");
    assert.equal(
      world.inventory("c1").some((entry) => entry.itemId === "bronze_arrow"),
      false,
    );
  });

  it("does not fire arrows that do not fit the bow", () => {
    const world = new World({ data, random: seededRandom(3) });
    const archer = newCharacter("c1", "Archer", data);
    archer.equipment = { ...archer.equipment, weapon: "shortbow", ammo: "steel_arrow" };
    world.join(archer);
    const monster = monsterInView(world, archer);
    world.submit("c1", { type: "action", action: "attack", targetId: monster!.id });
    const events = Array.from({ length: 30 }, () => world.step().events).flat();
    assert.equal(events.filter((e) => e.event === "combat:hit" && e.data.attackerId === "c1").length, 0);
    assert.ok(events.some((e) => e.event === "error" && e.data.code === "no_ammo"));
    assert.equal(world.character("c1").equipment.ammo, "steel_arrow", "nothing taken");
  });
});
