import assert from "node:assert/strict";
import { AccountRepository } from "../../src/db/accounts.js";
import { AgentLimitError, AgentRepository, type AgentRow } from "../../src/db/agents.js";
import { CharacterRepository } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import type { WriteFence } from "../../src/db/world-lease.js";
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
  });
}

const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
