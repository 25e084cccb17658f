import assert from "node:assert/strict";
import { newCharacter } from "../../src/game/character.js";
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
});
