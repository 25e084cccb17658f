import assert from "node:assert/strict";
import { AccountRepository } from "../../src/db/accounts.js";
import { AgentLimitError, AgentRepository, type AgentRow } from "../../src/db/agents.js";
import { CharacterRepository } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import { TradeRepository } from "../../src/db/trades.js";
import type { WriteFence } from "../../src/db/world-lease.js";
import { WorldStore } from "../../src/db/world-store.js";
import { plainCharacter } from "../support/characters.js";
import { backends, truncateAll } from "../support/databases.js";

const ANY_FENCE: WriteFence = { check: async () => {} };
const LIMITS = { perAccount: 2, perAddress: 3, maxOwned: 4 };

for (const backend of backends) {
  describe(`AgentRepository: agents in numbered worlds (${backend.name})`, () => {
    let handle: DatabaseHandle;
    let agents: AgentRepository;
    let accounts: AccountRepository;
    let made = 0;

    before(async () => {
      handle = await backend.open();
      agents = new AgentRepository(handle.db);
      accounts = new AccountRepository(handle.db);
    });
    beforeEach(() => truncateAll(handle));
    after(() => handle.close());

    /** Stores a new agent (its character named after its id) and resolves to its id. */
    async function create(
      fields: Partial<Omit<AgentRow, "characterId" | "name">>,
      limits = LIMITS,
    ): Promise<string> {
      const id = `agent${++made}`;
      const row = { ownerAccountId: null, ownerAddress: null, goal: null, goalsPaused: false, world: 1 };
      await agents.create({ ...row, ...fields, id }, plainCharacter(id), ANY_FENCE, limits);
      return id;
    }
    const ownerAccount = async (subject: string) => (await accounts.findOrCreate(subject, "anonymous")).id;

    it("keeps each agent in the world it was made for, its character's world", async () => {
      const first = await create({ world: 1 });
      const second = await create({ world: 2 });
      assert.deepEqual(
        (await agents.all(2)).map(({ id, world }) => ({ id, world })),
        [{ id: second, world: 2 }],
      );
      assert.deepEqual((await agents.all()).map(({ id, world }) => ({ id, world })).sort(byId), [
        { id: first, world: 1 },
        { id: second, world: 2 },
      ]);
      const [stored] = await agents.all(2);
      assert.equal(await new CharacterRepository(handle.db).worldOf(stored!.characterId), 2);
    });

    it("counts an account's agents over every world, the configured agents aside", async () => {
      const owner = await ownerAccount("owner");
      await create({ ownerAccountId: owner, world: 1 });
      await create({ ownerAccountId: owner, world: 2 });
      await create({ world: 2 });
      await assert.rejects(
        create({ ownerAccountId: owner, world: 3 }),
        (error: Error) =>
          error instanceof AgentLimitError && /an account may run 2 agents/.test(error.message),
      );
      assert.equal((await agents.all()).length, 3, "nothing of the refused agent was stored");
    });

    it("counts the agents started from one address, and all owned agents, over every world", async () => {
      const [a, b, c] = await Promise.all(["a", "b", "c"].map(ownerAccount));
      await create({ ownerAccountId: a!, ownerAddress: "10.0.0.1", world: 1 });
      await create({ ownerAccountId: b!, ownerAddress: "10.0.0.1", world: 2 });
      await create({ ownerAccountId: c!, ownerAddress: "10.0.0.1", world: 3 });
      await assert.rejects(
        create({ ownerAccountId: c!, ownerAddress: "10.0.0.1", world: 1 }),
        /one client address may start 3 agents/,
      );
      await create({ ownerAccountId: c!, ownerAddress: "10.0.0.2", world: 2 });
      await assert.rejects(
        create({ ownerAccountId: a!, ownerAddress: "10.0.0.3", world: 2 }),
        /this server runs 4 agents of accounts/,
      );
    });

    it("counts creations asked at once one after another: no more pass than the limit", async () => {
      const owner = await ownerAccount("eager");
      const attempts = await Promise.allSettled(
        [1, 2, 1, 2, 1, 2].map((world) => create({ ownerAccountId: owner, world })),
      );
      const passed = attempts.filter((attempt) => attempt.status === "fulfilled").length;
      assert.equal(passed, LIMITS.perAccount, JSON.stringify(attempts.map((attempt) => attempt.status)));
      for (const attempt of attempts)
        if (attempt.status === "rejected")
          assert.ok(attempt.reason instanceof AgentLimitError, attempt.reason);
      assert.equal((await agents.all()).length, LIMITS.perAccount);
    });

    it("deletes an agent with its character, freeing its name; its trades stay, and later writes of it are left out", async () => {
      const characters = new CharacterRepository(handle.db);
      const id = await create({});
      const coins = (quantity: number) => [{ slot: 0, itemId: "coins", quantity }];
      await characters.create(null, plainCharacter("bob", { inventory: coins(50) }));
      const trades = new TradeRepository(handle.db);
      const traded = await trades.complete(
        {
          tradeId: "gift",
          a: { characterId: "bob", offer: [{ inventorySlot: 0, itemId: "coins", quantity: 20 }] },
          b: { characterId: id, offer: [] },
        },
        new Map([
          ["coins", { id: "coins", name: "Coins", type: "misc", value: 1, stackable: true, tradeable: true }],
        ]),
      );
      assert.equal(traded.ok, true);

      await agents.delete(id, ANY_FENCE);
      assert.equal(await characters.load(id), undefined, "the character and its items are gone");
      assert.deepEqual(await agents.all(), []);
      assert.deepEqual(
        (await trades.history("bob")).map(({ id, playerA, playerB }) => ({ id, playerA, playerB })),
        [{ id: "gift", playerA: "bob", playerB: null }],
      );
      // Its world still held it (a fight keeps a leaving player): its write is left out, the rest written.
      await new WorldStore(handle.db).save({
        characters: [
          { state: plainCharacter(id, { inventory: coins(20) }) },
          { state: plainCharacter("bob", { inventory: coins(30), position: { x: 4, z: 2 } }) },
        ],
      });
      assert.equal(await characters.load(id), undefined, "not written back");
      assert.deepEqual((await characters.load("bob"))?.position, { x: 4, z: 2 });
      // Its name is free again.
      await agents.create(
        { ownerAccountId: null, ownerAddress: null, goal: null, goalsPaused: false, world: 1, id: "again" },
        plainCharacter("again", { name: id }),
        ANY_FENCE,
        LIMITS,
      );
    });
  });
}

const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
