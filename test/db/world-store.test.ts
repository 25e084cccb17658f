import assert from "node:assert/strict";
import { CharacterRepository } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import { WorldStore } from "../../src/db/world-store.js";
import type { GroundItem } from "../../src/game/ground-items.js";
import { plainCharacter } from "../support/characters.js";
import { backends, truncateAll } from "../support/databases.js";

const coinsOnTheGround = (id: string, droppedTick: number, quantity = 25): GroundItem => ({
  id,
  itemId: "coins",
  quantity,
  position: { x: 3, z: 4 },
  ownerId: "dropper",
  droppedTick,
});

for (const backend of backends) {
  describe(`WorldStore: the world's writes (${backend.name})`, () => {
    let handle: DatabaseHandle;
    let store: WorldStore;
    let characters: CharacterRepository;

    before(async () => {
      handle = await backend.open();
      store = new WorldStore(handle.db);
      characters = new CharacterRepository(handle.db);
    });
    beforeEach(() => truncateAll(handle));
    after(() => handle.close());

    it("writes a drop as the emptied slot and the item on the ground, and loads the item again", async () => {
      const holding = plainCharacter("dropper", { inventory: [{ slot: 0, itemId: "coins", quantity: 25 }] });
      await characters.create(null, holding);
      await store.save({
        characters: [{ state: { ...holding, inventory: [] }, parts: ["inventory"] }],
        ground: { put: [coinsOnTheGround("item:7", 40)], removed: [] },
      });
      assert.deepEqual((await characters.load("dropper"))?.inventory, []);
      assert.deepEqual(await store.loadGround(40), [coinsOnTheGround("item:7", 40)]);
    });

    it("writes nothing of a write that fails: the slot keeps its item and the ground stays empty", async () => {
      const holding = plainCharacter("dropper", { inventory: [{ slot: 0, itemId: "coins", quantity: 25 }] });
      await characters.create(null, holding);
      await assert.rejects(
        store.save({
          characters: [{ state: { ...holding, inventory: [] }, parts: ["inventory"] }],
          // A quantity of 0 breaks the table's check: the whole transaction must roll back.
          ground: { put: [coinsOnTheGround("item:7", 40, 0)], removed: [] },
        }),
      );
      assert.equal((await characters.load("dropper"))?.inventory.length, 1);
      assert.deepEqual(await store.loadGround(0), []);
    });

    it("updates an item whose quantity changed and deletes the ones taken away", async () => {
      await store.save({
        characters: [],
        ground: { put: [coinsOnTheGround("item:1", 5), coinsOnTheGround("item:2", 6)], removed: [] },
      });
      await store.save({
        characters: [],
        ground: { put: [coinsOnTheGround("item:1", 5, 10)], removed: ["item:2"] },
      });
      assert.deepEqual(await store.loadGround(5), [coinsOnTheGround("item:1", 5, 10)]);
    });

    it("moves the dropped ticks so the newest fell at the loading world's tick, in the table too", async () => {
      await store.save({
        characters: [],
        ground: { put: [coinsOnTheGround("item:1", 900), coinsOnTheGround("item:2", 1000)], removed: [] },
      });
      const first = await store.loadGround(0);
      assert.deepEqual(
        first.map((item) => [item.id, item.droppedTick]),
        [
          ["item:1", -100],
          ["item:2", 0],
        ],
      );
      // A later run that wrote nothing new finds the same ages.
      const again = await store.loadGround(0);
      assert.deepEqual(again, first);
    });

    it("keeps each numbered world's ground apart: same ids, own rows, own loads and removals", async () => {
      const second = store.forWorld(2);
      await store.save({ characters: [], ground: { put: [coinsOnTheGround("item:1", 10, 5)], removed: [] } });
      await second.save({
        characters: [],
        ground: { put: [coinsOnTheGround("item:1", 20, 7)], removed: [] },
      });
      assert.deepEqual(await store.loadGround(10), [coinsOnTheGround("item:1", 10, 5)]);
      assert.deepEqual(await second.loadGround(20), [coinsOnTheGround("item:1", 20, 7)]);

      await second.save({ characters: [], ground: { put: [], removed: ["item:1"] } });
      assert.deepEqual(await second.loadGround(20), []);
      assert.deepEqual(
        await store.loadGround(10),
        [coinsOnTheGround("item:1", 10, 5)],
        "world 1 keeps its item",
      );
    });
  });
}
