import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { CharacterRepository } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import { WorldStore, type WorldWrite } from "../../src/db/world-store.js";
import { createLogger } from "../../src/logger.js";
import { WorldPersistence } from "../../src/rooms/world-persistence.js";
import { plainCharacter } from "../support/characters.js";
import { backends, truncateAll } from "../support/databases.js";

/** The real store, with each transaction it was asked for noted (the ids of its characters). */
class NotingStore extends WorldStore {
  readonly transactions: string[][] = [];

  override save(write: WorldWrite): Promise<void> {
    this.transactions.push(write.characters.map(({ state }) => state.id));
    return super.save(write);
  }
}

const at = (id: string, x: number) => plainCharacter(id, { position: { x, z: 0 } });

for (const backend of backends) {
  describe(`WorldPersistence: the world's writes in order (${backend.name})`, () => {
    let handle: DatabaseHandle;
    let characters: CharacterRepository;
    let store: NotingStore;
    let persistence: WorldPersistence;

    before(async () => {
      handle = await backend.open();
      characters = new CharacterRepository(handle.db);
    });
    beforeEach(async () => {
      await truncateAll(handle);
      store = new NotingStore(handle.db);
      persistence = new WorldPersistence(store, createLogger("silent", false), {
        finalWriteBackoffMs: [10, 10],
      });
    });
    after(() => handle.close());

    it("saves players who leave at once in one transaction", async () => {
      const ids = Array.from({ length: 40 }, (_, i) => `leaver-${i}`);
      for (const id of ids) await characters.create(null, at(id, 0));
      // The database is busy with something else while they leave.
      const busy = persistence.run(() => sleep(50));
      const saved = ids.map((id) => persistence.writeFinal([{ state: at(id, 7) }]));
      await Promise.all([busy, ...saved]);
      assert.deepEqual(store.transactions, [ids]);
      for (const id of ids) assert.deepEqual((await characters.load(id))?.position, { x: 7, z: 0 });
    });

    it("keeps a player's final state over an earlier one queued before it left", async () => {
      await characters.create(null, at("first", 0));
      await characters.create(null, at("second", 0));
      persistence.run(() => sleep(50));
      const leaving = persistence.writeFinal([{ state: at("first", 1) }]);
      // A tick's write, holding the second player as it stood then...
      const tick = persistence.write({ characters: [{ state: at("second", 2) }] });
      // ...who then leaves from further on: that final state must be written after the tick's.
      const leavingLater = persistence.writeFinal([{ state: at("second", 3) }]);
      await Promise.all([leaving, tick, leavingLater]);
      assert.deepEqual(store.transactions, [["first"], ["second"], ["second"]]);
      assert.deepEqual((await characters.load("second"))?.position, { x: 3, z: 0 });
      assert.deepEqual((await characters.load("first"))?.position, { x: 1, z: 0 });
    });

    it("lets a returning player load only once its final save is written", async () => {
      await characters.create(null, at("returner", 0));
      await characters.create(null, at("someone-else", 0));
      persistence.run(() => sleep(50));
      persistence.writeFinal([{ state: at("someone-else", 5) }]);
      persistence.writeFinal([{ state: at("returner", 9) }]);
      await persistence.settled("returner");
      assert.deepEqual((await characters.load("returner"))?.position, { x: 9, z: 0 });
    });

    it("writes the others of a departure that cannot be written, each on its own", async () => {
      await characters.create(null, at("saved", 0));
      persistence.run(() => sleep(50));
      // A character the database does not have: its write breaks the transaction it is in.
      const failing = persistence.writeFinal([{ state: at("deleted", 5) }]);
      const saved = persistence.writeFinal([{ state: at("saved", 6) }]);
      assert.equal(saved, failing, "one write for both");
      await assert.rejects(failing);
      assert.deepEqual((await characters.load("saved"))?.position, { x: 6, z: 0 });
      assert.deepEqual(store.transactions[0], ["deleted", "saved"]);
      assert.ok(store.transactions.slice(1).some((ids) => ids.length === 1 && ids[0] === "saved"));
    });
  });
}
