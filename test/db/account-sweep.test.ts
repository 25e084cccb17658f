import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { AnonymousAccountSweep, SWEEP_BATCH } from "../../src/auth/account-sweep.js";
import { AccountRepository } from "../../src/db/accounts.js";
import { AgentRepository } from "../../src/db/agents.js";
import { CharacterRepository } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import { TradeRepository } from "../../src/db/trades.js";
import type { WriteFence } from "../../src/db/world-lease.js";
import type { ItemDef } from "../../src/game/types.js";
import { plainCharacter } from "../support/characters.js";
import { backends, truncateAll } from "../support/databases.js";
import { recordingLogger } from "../support/recording-logger.js";

const RETENTION_SECONDS = 7200;
const ANY_FENCE: WriteFence = { check: async () => {} };
const COINS: ItemDef = {
  id: "coins",
  name: "Coins",
  type: "misc",
  value: 1,
  stackable: true,
  tradeable: true,
};

for (const backend of backends) {
  describe(`AnonymousAccountSweep: anonymous accounts long unseen (${backend.name})`, () => {
    let handle: DatabaseHandle;
    let accounts: AccountRepository;
    let characters: CharacterRepository;

    before(async () => {
      handle = await backend.open();
      accounts = new AccountRepository(handle.db);
      characters = new CharacterRepository(handle.db);
    });
    beforeEach(() => truncateAll(handle));
    after(() => handle.close());

    /** An account of `kind` with a character named after `subject` holding 50 coins, last seen `hoursAgo`. */
    async function accountWithCharacter(subject: string, kind: "anonymous" | "idp", hoursAgo: number) {
      const account = await accounts.findOrCreate(subject, kind);
      await characters.create(
        account.id,
        plainCharacter(subject, { inventory: [{ slot: 0, itemId: "coins", quantity: 50 }] }),
      );
      await handle.db.execute(
        sql`update accounts set last_seen_at = now() - make_interval(hours => ${hoursAgo}) where id = ${account.id}`,
      );
      return account.id;
    }
    const sweep = (logger = recordingLogger("info").logger) =>
      new AnonymousAccountSweep(accounts, RETENTION_SECONDS, logger).sweep();

    it("deletes the anonymous accounts unseen past the retention, with their characters; keeps the rest", async () => {
      const gone = await accountWithCharacter("gone", "anonymous", 3);
      const recent = await accountWithCharacter("recent", "anonymous", 1);
      const member = await accountWithCharacter("member", "idp", 3);
      const owner = await accountWithCharacter("owner", "anonymous", 3);
      await new AgentRepository(handle.db).create(
        { id: "helper", ownerAccountId: owner, ownerAddress: null, goal: null, goalsPaused: false, world: 1 },
        plainCharacter("helper"),
        ANY_FENCE,
        { perAccount: 5, perAddress: 5, maxOwned: 5 },
      );
      const trades = new TradeRepository(handle.db);
      const gift = { inventorySlot: 0, itemId: "coins", quantity: 20 };
      const traded = await trades.complete(
        {
          tradeId: "gift",
          a: { characterId: "gone", offer: [gift] },
          b: { characterId: "member", offer: [] },
        },
        new Map([["coins", COINS]]),
      );
      assert.equal(traded.ok, true);

      const { logger, lines } = recordingLogger("info");
      assert.equal(await sweep(logger), 1);
      assert.equal(await characters.load("gone"), undefined, "its character went with it");
      assert.equal(await accounts.find("gone"), undefined);
      for (const kept of [recent, member, owner]) assert.ok(await accounts.get(kept), `account ${kept} kept`);
      assert.ok(await characters.load("helper"), "an owner of an agent waits for the agents' own sweep");
      assert.deepEqual((await characters.load("member"))?.inventory, [
        { slot: 0, itemId: "coins", quantity: 70 },
      ]);
      assert.deepEqual(
        (await trades.history("member")).map(({ playerA, playerB }) => ({ playerA, playerB })),
        [{ playerA: null, playerB: "member" }],
        "the trade stays on record",
      );
      assert.ok(lines.some((line) => line.deleted === 1 && /deleted 1 anonymous account/.test(line.msg)));
      assert.equal(await sweep(), 0, "nothing left to delete");
      // The agent process asks which owners are gone for good: a deleted account is one.
      assert.deepEqual(await accounts.absentAnonymous([gone, recent, member], RETENTION_SECONDS), [gone]);
    });

    it("deletes more than one batch in one sweep", async () => {
      await handle.db.execute(sql`
        insert into accounts (id, subject, kind, last_seen_at)
        select 'old' || n, 'anon:old' || n, 'anonymous', now() - interval '3 hours'
        from generate_series(1, ${SWEEP_BATCH + 1}) as n`);
      assert.equal(await sweep(), SWEEP_BATCH + 1);
      const [row] = (
        (await handle.db.execute(sql`select count(*)::int as left from accounts`)) as unknown as {
          rows: { left: number }[];
        }
      ).rows;
      assert.equal(row?.left, 0);
    });

    it("keeps every account with a retention of 0", async () => {
      await accountWithCharacter("ancient", "anonymous", 1000);
      const sweeper = new AnonymousAccountSweep(accounts, 0, recordingLogger("info").logger);
      assert.equal(await sweeper.sweep(), 0);
      assert.ok(await accounts.find("ancient"));
    });
  });
}
