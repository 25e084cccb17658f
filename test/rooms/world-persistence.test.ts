import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { CharacterRepository, type CharacterSave } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import type { WriteFence } from "../../src/db/world-lease.js";
import { WorldStore, type WorldWrite } from "../../src/db/world-store.js";
import type { GroundItem } from "../../src/game/ground-items.js";
import { type UnsavedWrites, WorldPersistence } from "../../src/rooms/world-persistence.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { plainCharacter } from "../support/characters.js";
import { backends, truncateAll } from "../support/databases.js";

/** The real store, with each transaction it was asked for noted, failing while told to. */
class NotingStore extends WorldStore {
  readonly transactions: { characters: string[]; ground: string[]; apart?: string[] }[] = [];
  failuresLeft = 0;

  override save(write: WorldWrite, fence?: WriteFence, apart: readonly CharacterSave[] = []) {
    this.transactions.push({
      characters: write.characters.map(({ state }) => state.id),
      ground: write.ground?.put.map((item) => item.id) ?? [],
      ...(apart.length > 0 && { apart: apart.map(({ state }) => state.id) }),
    });
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      return Promise.reject(new Error("database unavailable"));
    }
    return super.save(write, fence, apart);
  }
}

/** The world's side, as TickSaves keeps it: what changed and is not written, taken whole by each write. */
class Unsaved implements UnsavedWrites {
  private characters = new Map<string, CharacterSave>();
  private put = new Map<string, GroundItem>();

  move(id: string, x: number): void {
    this.characters.set(id, { state: at(id, x), parts: ["position"] });
  }
  drop(id: string): void {
    this.put.set(id, { id, itemId: "coins", quantity: 5, position: { x: 1, z: 1 }, droppedTick: 1 });
  }
  take(): WorldWrite {
    const write = {
      characters: [...this.characters.values()],
      ground: { put: [...this.put.values()], removed: [] },
    };
    this.characters.clear();
    this.put.clear();
    return write;
  }
  failed({ characters, ground }: WorldWrite): void {
    for (const save of characters)
      if (!this.characters.has(save.state.id)) this.characters.set(save.state.id, save);
    for (const item of ground?.put ?? []) if (!this.put.has(item.id)) this.put.set(item.id, item);
  }
}

const at = (id: string, x: number) => plainCharacter(id, { position: { x, z: 0 } });

for (const backend of backends) {
  describe(`WorldPersistence: the world's writes in order (${backend.name})`, () => {
    let handle: DatabaseHandle;
    let characters: CharacterRepository;
    let store: NotingStore;
    let unsaved: Unsaved;
    let persistence: WorldPersistence;
    const positionOf = async (id: string) => (await characters.load(id))?.position.x;

    before(async () => {
      handle = await backend.open();
      characters = new CharacterRepository(handle.db);
    });
    beforeEach(async () => {
      await truncateAll(handle);
      store = new NotingStore(handle.db);
      unsaved = new Unsaved();
      persistence = new WorldPersistence(store, unsaved, createLogger("silent", "json"), {
        closingWriteBackoffMs: [10, 10],
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
      assert.deepEqual(
        store.transactions.map((write) => write.characters),
        [ids],
      );
      for (const id of ids) assert.equal(await positionOf(id), 7);
    });

    it("makes one write of the ticks that came while the database was busy, as the world then stands", async () => {
      await characters.create(null, at("walker", 0));
      persistence.run(() => sleep(50));
      unsaved.move("walker", 1);
      const first = persistence.write();
      unsaved.move("walker", 2);
      const second = persistence.write();
      assert.equal(second, first);
      await second;
      assert.equal(store.transactions.length, 1);
      assert.equal(await positionOf("walker"), 2);
    });

    it("writes a departure together with what the world left unsaved", async () => {
      await characters.create(null, at("dropper", 0));
      store.failuresLeft = 1;
      unsaved.drop("coins-1");
      await assert.rejects(persistence.write());
      await persistence.writeFinal([{ state: at("dropper", 4) }]);
      assert.deepEqual(store.transactions.at(-1), { characters: ["dropper"], ground: ["coins-1"] });
    });

    it("carries a departure it could not write in every following write until one commits", async () => {
      await characters.create(null, at("leaver", 0));
      await characters.create(null, at("stayer", 0));
      store.failuresLeft = 2;
      await assert.rejects(persistence.writeFinal([{ state: at("leaver", 9) }]));
      let settled = false;
      persistence.settled("leaver").then(() => {
        settled = true;
      });
      // The next ticks' writes: one fails, the other commits, each with the departure in it.
      unsaved.drop("coins-2");
      await assert.rejects(persistence.write());
      assert.equal(settled, false, "a returning player still waits");
      unsaved.move("stayer", 3);
      await persistence.write();
      assert.deepEqual(store.transactions, [
        { characters: ["leaver"], ground: [] },
        { characters: ["leaver"], ground: ["coins-2"] },
        { characters: ["leaver", "stayer"], ground: ["coins-2"] },
      ]);
      await persistence.settled("leaver");
      assert.equal(await positionOf("leaver"), 9);
      // Written, it is carried no more.
      unsaved.move("stayer", 4);
      await persistence.write();
      assert.deepEqual(store.transactions.at(-1), { characters: ["stayer"], ground: [] });
    });

    it("leaves out a departure the database refuses as data, and writes the others and the world", async () => {
      for (const id of ["ghost", "leaver", "stayer"]) await characters.create(null, at(id, 0));
      // A health below 0 breaks the table's check: any transaction it is in, every time.
      const ghost = { ...at("ghost", 1), health: -1 };
      await assert.rejects(persistence.writeFinal([{ state: ghost }, { state: at("leaver", 9) }]));
      unsaved.move("stayer", 3);
      await persistence.write();
      await persistence.settled("leaver");
      assert.equal(await positionOf("leaver"), 9);
      assert.equal(await positionOf("stayer"), 3);
      assert.deepEqual(store.transactions.at(-1), {
        characters: ["stayer"],
        ground: [],
        apart: ["ghost", "leaver"],
      });
      // Given up, it is carried no more.
      unsaved.move("stayer", 4);
      await persistence.write();
      assert.deepEqual(store.transactions.at(-1), { characters: ["stayer"], ground: [] });
    });

    it("lets a returning player load only once its final save is written", async () => {
      await characters.create(null, at("returner", 0));
      await characters.create(null, at("someone-else", 0));
      persistence.run(() => sleep(50));
      persistence.writeFinal([{ state: at("someone-else", 5) }]);
      persistence.writeFinal([{ state: at("returner", 9) }]);
      await persistence.settled("returner");
      assert.equal(await positionOf("returner"), 9);
    });

    it("tries a closing world's last write again while it fails", async () => {
      await characters.create(null, at("last", 0));
      store.failuresLeft = 2;
      persistence.writeFinal([{ state: at("last", 6) }]).catch(() => {});
      await persistence.flush();
      assert.equal(store.transactions.length, 3);
      assert.equal(await positionOf("last"), 6);
    });
  });
}
