import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { AgentRepository } from "../../src/db/agents.js";
import { CharacterRepository } from "../../src/db/characters.js";
import type { DatabaseHandle, Executor } from "../../src/db/database.js";
import { TradeRepository } from "../../src/db/trades.js";
import { WorldLease, WorldSupersededError } from "../../src/db/world-lease.js";
import { WorldStore } from "../../src/db/world-store.js";
import type { ItemDef } from "../../src/game/types.js";
import { plainCharacter } from "../support/characters.js";
import { backends, openFreshPostgres, postgresUrl, truncateAll } from "../support/databases.js";

const ITEMS: ReadonlyMap<string, ItemDef> = new Map([
  ["coins", { id: "coins", name: "Coins", type: "misc", value: 1, stackable: true, tradeable: true }],
]);
const purse = (quantity: number) => [{ slot: 0, itemId: "coins", quantity }];

for (const backend of backends) {
  describe(`WorldLease: one world writes at a time (${backend.name})`, () => {
    let handle: DatabaseHandle;
    let characters: CharacterRepository;
    let store: WorldStore;

    before(async () => {
      handle = await backend.open();
      characters = new CharacterRepository(handle.db);
      store = new WorldStore(handle.db);
    });
    beforeEach(async () => {
      await truncateAll(handle);
      await characters.create(null, plainCharacter("alice", { inventory: purse(100) }));
      await characters.create(null, plainCharacter("bob", { inventory: [] }));
    });
    after(() => handle.close());

    const spend = (quantity: number) => ({
      characters: [
        { state: plainCharacter("alice", { inventory: purse(quantity) }), parts: ["inventory" as const] },
      ],
    });
    const coins = async (id: string) => (await characters.load(id))?.inventory[0]?.quantity;

    it("gives each opening of the world the next epoch", async () => {
      const first = await WorldLease.claim(handle.db);
      const second = await WorldLease.claim(handle.db);
      assert.equal(second.epoch, first.epoch + 1);
    });

    it("gives each numbered world a lease of its own: claiming one leaves the others writing", async () => {
      const first = await WorldLease.claim(handle.db, 1);
      const second = await WorldLease.claim(handle.db, 2);
      await WorldLease.claim(handle.db, 2);
      await store.save(spend(90), first);
      assert.equal(await coins("alice"), 90, "world 1 still holds its lease");
      await assert.rejects(store.save(spend(10), second), WorldSupersededError);
      await WorldLease.revoke(handle.db, first.epoch, 2);
      await store.save(spend(80), first);
      assert.equal(await coins("alice"), 80, "revoking world 2's epoch leaves world 1 alone");
    });

    it("lets the world holding the lease write, and refuses every write of the world it replaced", async () => {
      const replaced = await WorldLease.claim(handle.db);
      await store.save(spend(90), replaced);
      assert.equal(await coins("alice"), 90);

      const current = await WorldLease.claim(handle.db);
      await assert.rejects(store.save(spend(10), replaced), WorldSupersededError);
      assert.equal(await coins("alice"), 90, "the replaced world's tick wrote nothing");

      const trades = new TradeRepository(handle.db);
      const trade = {
        tradeId: "t1",
        a: { characterId: "alice", offer: [{ inventorySlot: 0, itemId: "coins", quantity: 50 }] },
        b: { characterId: "bob", offer: [] },
      };
      await assert.rejects(trades.complete(trade, ITEMS, replaced), WorldSupersededError);
      assert.deepEqual([await coins("alice"), await coins("bob")], [90, undefined], "nor did its trade");
      assert.deepEqual(await trades.history("alice"), []);

      await store.save(spend(80), current);
      assert.equal(await coins("alice"), 80);
    });

    it("refuses the agent writes of the world it replaced: a goal, a new agent, a removal", async () => {
      const agents = new AgentRepository(handle.db);
      const agent = {
        id: "a1",
        ownerAccountId: null,
        ownerAddress: null,
        goal: null,
        goalsPaused: false,
        world: 1,
      };
      const limits = { perAccount: 1, perAddress: 1, maxOwned: 1 };
      const replaced = await WorldLease.claim(handle.db);
      await agents.create(agent, plainCharacter("sprout"), replaced, limits);
      await agents.saveControl({ id: "a1", goal: { type: "mining" }, goalsPaused: false }, replaced);

      const current = await WorldLease.claim(handle.db);
      await assert.rejects(
        agents.saveControl({ id: "a1", goal: { type: "fishing" }, goalsPaused: true }, replaced),
        WorldSupersededError,
      );
      await assert.rejects(
        agents.create({ ...agent, id: "a2" }, plainCharacter("sapling"), replaced, limits),
        WorldSupersededError,
      );
      await assert.rejects(agents.delete("a1", replaced), WorldSupersededError);
      const stored = await agents.all();
      assert.deepEqual(
        stored.map(({ id, goal, goalsPaused }) => ({ id, goal, goalsPaused })),
        [{ id: "a1", goal: { type: "mining" }, goalsPaused: false }],
      );
      assert.equal(await characters.load("sapling"), undefined, "nor its character");

      // The world holding the lease may store a character of that name, so nothing of it was left.
      await agents.create({ ...agent, id: "a2" }, plainCharacter("sapling"), current, limits);
      await agents.delete("a1", current);
      assert.deepEqual(
        (await agents.all()).map(({ id }) => id),
        ["a2"],
      );
    });
  });
}

// Concurrent transactions need a server: PGlite runs one statement at a time.
(postgresUrl ? describe : describe.skip)("WorldLease under concurrency (postgres)", () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await openFreshPostgres(postgresUrl!, 4);
  });
  after(() => handle.close());

  /** A world's transaction that passes its fence, then waits for `resume` before doing `rest`. */
  async function heldWrite(lease: WorldLease, rest: (tx: Executor) => Promise<void>) {
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let checked!: () => void;
    const fenceChecked = new Promise<void>((resolve) => {
      checked = resolve;
    });
    const done = handle.db.transaction(async (tx) => {
      await lease.check(tx);
      checked();
      await resumed;
      await rest(tx);
    });
    await fenceChecked;
    return { resume, done };
  }

  it("makes a new world's claim wait for the replaced world's write under way, then refuses the next", async () => {
    const characters = new CharacterRepository(handle.db);
    await characters.create(null, plainCharacter("alice", { inventory: purse(100) }));
    const replaced = await WorldLease.claim(handle.db);

    const order: string[] = [];
    // A tick's transaction of the old world that has passed its fence and is still writing.
    const write = await heldWrite(replaced, async () => {
      order.push("old world's write committed");
    });
    const claim = WorldLease.claim(handle.db).then((lease) => {
      order.push("new world claimed");
      return lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(order, [], "the claim waits for the write under way");
    write.resume();
    await write.done;
    const current = await claim;
    assert.deepEqual(order, ["old world's write committed", "new world claimed"]);
    await assert.rejects(
      handle.db.transaction((tx) => replaced.check(tx)),
      WorldSupersededError,
    );
    await handle.db.transaction((tx) => current.check(tx));
  });

  it("revokes one world's lease once its write under way is done, and leaves a later world's alone", async () => {
    const gone = await WorldLease.claim(handle.db);
    const order: string[] = [];
    const write = await heldWrite(gone, async () => {
      order.push("gone world's write committed");
    });
    const revoked = WorldLease.revoke(handle.db, gone.epoch).then(() => order.push("revoked"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(order, [], "the revocation waits for the write under way");
    write.resume();
    await Promise.all([write.done, revoked]);
    assert.deepEqual(order, ["gone world's write committed", "revoked"]);
    await assert.rejects(
      handle.db.transaction((tx) => gone.check(tx)),
      WorldSupersededError,
    );

    const current = await WorldLease.claim(handle.db);
    await WorldLease.revoke(handle.db, gone.epoch);
    await handle.db.transaction((tx) => current.check(tx));
  });

  it("ends the transaction of a world whose process stalled mid-write, so the new world's claim waits for it 5 s at most", async function () {
    this.timeout(20000);
    const replaced = await WorldLease.claim(handle.db);
    // A tick's transaction that passed its fence, and then nothing: its process stopped.
    const write = await heldWrite(replaced, async (tx) => {
      await tx.execute(sql`select 1`);
    });
    const started = performance.now();
    const current = await WorldLease.claim(handle.db);
    const waited = performance.now() - started;
    assert.ok(waited > 4000 && waited < 10000, `the claim waited ${Math.round(waited)} ms`);
    assert.equal(current.epoch, replaced.epoch + 1);
    // The stalled process goes on: its write fails, and so does its next one, at the fence.
    write.resume();
    await assert.rejects(write.done);
    await assert.rejects(
      handle.db.transaction((tx) => replaced.check(tx)),
      WorldSupersededError,
    );
  });
});
