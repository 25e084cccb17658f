import assert from "node:assert/strict";
import type { WorldWrite } from "../../src/db/world-store.js";
import { TickSaves } from "../../src/rooms/tick-saves.js";
import { character, gameData, makeWorld, SPAWN } from "../game/world-fixture.js";

const positionsIn = ({ characters }: WorldWrite) =>
  characters
    .filter((save) => save.parts?.includes("position"))
    .map(({ state }) => `${state.position.x},${state.position.z}`);

const partsIn = ({ characters }: WorldWrite) =>
  characters.map((save) => [save.state.id, [...(save.parts ?? [])].sort()]);

function worldWithPlayer() {
  const world = makeWorld();
  world.join(character("p1"));
  const slotOf = (itemId: string) => world.inventory("p1").find((entry) => entry.itemId === itemId)!.slot;
  const saves = new TickSaves(world);
  /** A tick, and a write that takes what is unsaved right after it. */
  const tickWrite = () => {
    saves.note(world.step());
    return saves.take();
  };
  return { world, slotOf, saves, tickWrite };
}

const NOTHING: WorldWrite = { characters: [], ground: { put: [], removed: [] }, undoneTrades: [] };

describe("TickSaves: what the world's writes hold", () => {
  it("writes a walker's position on the way only every 10 ticks, and where the walk ends", () => {
    const { world, tickWrite } = worldWithPlayer();
    world.submit("p1", { type: "move", x: SPAWN.x, z: SPAWN.z + 15 });
    const written: string[] = [];
    for (let tick = 0; tick < 25; tick++) written.push(...positionsIn(tickWrite()));
    assert.equal(written.length, 2, written.join(" "));
    assert.notEqual(written[0], `${SPAWN.x},${SPAWN.z}`, "a tile on the way");
    assert.equal(written[1], `${SPAWN.x},${SPAWN.z + 15}`);
  });

  it("writes a chosen combat style with the character's row, so the next login fights in it", () => {
    const { world, tickWrite } = worldWithPlayer();
    world.submit("p1", { type: "action", action: "combat_style", style: "defensive" });
    const save = tickWrite().characters[0]!;
    assert.deepEqual(save.parts, ["position"]);
    assert.equal(save.state.combatStyle, "defensive");
  });

  it("writes the prayer points a prayer drained with the character's row, so a relog does not recharge them", () => {
    const skin = { id: "bark_skin", name: "Bark Skin", level: 1, drain: 5, defence: 1.05 };
    const world = makeWorld({ data: gameData({ prayers: new Map([[skin.id, skin]]) }) });
    world.join(character("p1"));
    const saves = new TickSaves(world);
    world.submit("p1", { type: "pray", prayerId: skin.id, active: true });
    const written: (number | undefined)[] = [];
    for (let tick = 0; tick < 25; tick++) {
      saves.note(world.step());
      for (const save of saves.take().characters)
        if (save.parts?.includes("position")) written.push(save.state.prayerPoints);
    }
    assert.deepEqual(written, [0], "the one point, gone after 20 ticks");
  });

  it("writes the run energy a run spent with the character's row, so a relog does not refill it", () => {
    const { world, tickWrite } = worldWithPlayer();
    world.submit("p1", { type: "move", x: SPAWN.x, z: SPAWN.z + 10, run: true });
    const written: (number | undefined)[] = [];
    const parts = new Set<string>();
    for (let tick = 0; tick < 5; tick++) {
      for (const save of tickWrite().characters) {
        if (save.parts?.includes("position")) written.push(save.state.runEnergy);
        for (const part of save.parts ?? []) parts.add(part);
      }
    }
    // Five ticks of 0.67 % each; the last write is where the run ends, 5 ticks in.
    assert.deepEqual(written, [10_000 - 5 * 67]);
    // The run's player:syncs show only the energy: its items and skills are not written again.
    assert.deepEqual([...parts], ["position"]);
  });

  it("writes a drop as the emptied slot and the item on the ground, in the same write", () => {
    const { world, slotOf, tickWrite } = worldWithPlayer();
    world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf("coins") });
    const write = tickWrite();
    const save = write.characters[0]!;
    assert.ok(save.parts?.includes("inventory"));
    assert.ok(!save.state.inventory.some((entry) => entry.itemId === "coins"));
    assert.deepEqual(
      write.ground?.put.map((item) => [item.itemId, item.quantity, item.ownerId]),
      [["coins", 25, "p1"]],
    );
  });

  it("writes a pickup as the item leaving the ground and the filled slot, in the same write", () => {
    const { world, slotOf, tickWrite } = worldWithPlayer();
    world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf("coins") });
    const [coins] = tickWrite().ground!.put;
    world.submit("p1", { type: "action", action: "pickup", targetId: coins!.id });
    const write = tickWrite();
    assert.deepEqual(write.ground, { put: [], removed: [coins!.id] });
    assert.ok(write.characters[0]?.state.inventory.some((entry) => entry.itemId === "coins"));
  });

  it("copies what it writes: later changes do not reach a write still queued", () => {
    const { world, slotOf, tickWrite } = worldWithPlayer();
    world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf("coins") });
    const write = tickWrite();
    const written = structuredClone(write);
    world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf("bronze_sword") });
    world.step();
    assert.deepEqual(write, written);
  });

  it("takes what every tick noted since the last write, as the world holds it when the write starts", () => {
    const { world, slotOf, saves } = worldWithPlayer();
    world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf("coins") });
    saves.note(world.step());
    world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf("bronze_sword") });
    saves.note(world.step());
    const write = saves.take();
    const [save] = write.characters;
    assert.ok(!save?.state.inventory.some(({ itemId }) => itemId === "coins" || itemId === "bronze_sword"));
    assert.deepEqual(write.ground?.put.map((item) => item.itemId).sort(), ["bronze_sword", "coins"]);
    assert.deepEqual(saves.take(), NOTHING);
  });

  it("writes again, from the state of the time, what a failed write left unsaved", () => {
    const { world, slotOf, saves, tickWrite } = worldWithPlayer();
    world.submit("p1", { type: "action", action: "drop", inventorySlot: slotOf("coins") });
    const failed = tickWrite();
    assert.deepEqual(tickWrite(), NOTHING);
    saves.failed(failed);
    const retried = tickWrite();
    assert.deepEqual(partsIn(retried), partsIn(failed));
    assert.deepEqual(retried.ground?.put, failed.ground?.put);
  });

  it("writes an undone trade's inventories as the world holds them and its removal, until a write of them commits", () => {
    const { world, saves, tickWrite } = worldWithPlayer();
    saves.undoTrade("t1", ["p1"]);
    const failed = tickWrite();
    assert.deepEqual(partsIn(failed), [["p1", ["inventory"]]]);
    assert.deepEqual(failed.characters[0]?.state.inventory, world.inventory("p1"));
    assert.deepEqual(failed.undoneTrades, ["t1"]);
    saves.failed(failed);
    assert.deepEqual(tickWrite().undoneTrades, ["t1"], "taken again after the failure");
    assert.deepEqual(tickWrite(), NOTHING);
  });
});
