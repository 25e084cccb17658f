import assert from "node:assert/strict";
import type { CharacterSave } from "../../src/db/characters.js";
import { TickSaves } from "../../src/rooms/tick-saves.js";
import { character, makeWorld, SPAWN } from "../game/world-fixture.js";

const positionsIn = (saves: readonly CharacterSave[]) =>
  saves
    .filter((save) => save.parts?.includes("position"))
    .map(({ state }) => `${state.position.x},${state.position.z}`);

describe("TickSaves: what each tick writes", () => {
  it("writes a walker's position on the way only every 10 ticks, and where the walk ends", () => {
    const world = makeWorld();
    world.join(character("p1"));
    const saves = new TickSaves(world);
    world.submit("p1", { type: "move", x: SPAWN.x, z: SPAWN.z + 15 });
    const written: string[] = [];
    for (let tick = 0; tick < 25; tick++) written.push(...positionsIn(saves.of(world.step())));
    assert.equal(written.length, 2, written.join(" "));
    assert.notEqual(written[0], `${SPAWN.x},${SPAWN.z}`, "a tile on the way");
    assert.equal(written[1], `${SPAWN.x},${SPAWN.z + 15}`);
  });

  it("writes a dropped item's inventory with its tick, as a copy that later changes do not reach", () => {
    const world = makeWorld();
    world.join(character("p1"));
    const saves = new TickSaves(world);
    const coins = world.inventory("p1").find((entry) => entry.itemId === "coins")!;
    world.submit("p1", { type: "action", action: "drop", inventorySlot: coins.slot });
    const [save] = saves.of(world.step());
    assert.equal(save?.state.id, "p1");
    assert.ok(save.parts?.includes("inventory"));
    assert.ok(!save.state.inventory.some((entry) => entry.itemId === "coins"));
    const written = structuredClone(save.state.inventory);
    const sword = world.inventory("p1").find((entry) => entry.itemId === "bronze_sword")!;
    world.submit("p1", { type: "action", action: "drop", inventorySlot: sword.slot });
    world.step();
    assert.deepEqual(save.state.inventory, written);
  });

  it("writes again, from the state of the time, what a failed write left unsaved", () => {
    const world = makeWorld();
    world.join(character("p1"));
    const saves = new TickSaves(world);
    const coins = world.inventory("p1").find((entry) => entry.itemId === "coins")!;
    world.submit("p1", { type: "action", action: "drop", inventorySlot: coins.slot });
    const failed = saves.of(world.step());
    assert.deepEqual(saves.of(world.step()), [], "nothing new this tick");
    saves.failed(failed);
    const retried = saves.of(world.step());
    assert.deepEqual(
      retried.map((save) => [save.state.id, [...(save.parts ?? [])].sort()]),
      failed.map((save) => [save.state.id, [...(save.parts ?? [])].sort()]),
    );
  });
});
