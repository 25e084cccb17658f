import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "drizzle-orm";
import { CharacterRepository } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import { type TradeCompletion, TradeRepository } from "../../src/db/trades.js";
import { WorldStore } from "../../src/db/world-store.js";
import type { CharacterState, InventoryEntry } from "../../src/game/character-state.js";
import type { TradeOffer } from "../../src/game/trade.js";
import { type ItemDef, MAX_STACK } from "../../src/game/types.js";
import { plainCharacter } from "../support/characters.js";
import { backends, truncateAll } from "../support/databases.js";

const ITEMS: ReadonlyMap<string, ItemDef> = new Map(
  [
    { id: "coins", stackable: true },
    { id: "logs", stackable: false },
    { id: "bronze_sword", stackable: false },
  ].map(({ id, stackable }) => [id, { id, name: id, type: "misc", value: 1, stackable, tradeable: true }]),
);

function character(id: string, inventory: InventoryEntry[]): CharacterState {
  return plainCharacter(id, { inventory });
}

const offer = (inventorySlot: number, itemId: string, quantity: number): TradeOffer => ({
  inventorySlot,
  itemId,
  quantity,
});

const logsInEverySlot = (): InventoryEntry[] =>
  Array.from({ length: 28 }, (_, slot) => ({ slot, itemId: "logs", quantity: 1 }));

function trade(tradeId: string, offerA: TradeOffer[], offerB: TradeOffer[]): TradeCompletion {
  return { tradeId, a: { characterId: "alice", offer: offerA }, b: { characterId: "bob", offer: offerB } };
}

for (const backend of backends) {
  describe(`trade repository (${backend.name})`, () => {
    let handle: DatabaseHandle;
    let charactersRepo: CharacterRepository;
    let worldStore: WorldStore;
    let tradesRepo: TradeRepository;

    before(async () => {
      handle = await backend.open();
      charactersRepo = new CharacterRepository(handle.db);
      worldStore = new WorldStore(handle.db);
      tradesRepo = new TradeRepository(handle.db);
    });
    beforeEach(() => truncateAll(handle));
    after(() => handle.close());

    async function given(alice: InventoryEntry[], bob: InventoryEntry[]): Promise<void> {
      await charactersRepo.create(null, character("alice", alice));
      await charactersRepo.create(null, character("bob", bob));
    }
    const inventoryOf = async (id: string) => (await charactersRepo.load(id))?.inventory;

    async function assertNothingMoved(alice: InventoryEntry[], bob: InventoryEntry[]): Promise<void> {
      assert.deepEqual(await inventoryOf("alice"), alice);
      assert.deepEqual(await inventoryOf("bob"), bob);
      assert.deepEqual(
        await tradesRepo.history("alice"),
        [],
        "no history row for a trade that did not complete",
      );
    }

    it("says whether a trade committed, with both inventories as stored when it did", async () => {
      await given([{ slot: 0, itemId: "coins", quantity: 10 }], [{ slot: 0, itemId: "logs", quantity: 1 }]);
      const inDoubt = trade("t-in-doubt", [offer(0, "coins", 4)], [offer(0, "logs", 1)]);
      assert.equal(await tradesRepo.inventoriesIfCompleted(inDoubt), undefined);
      assert.deepEqual(await tradesRepo.history("alice"), [], "the check leaves no history row");
      const done = await tradesRepo.complete(inDoubt, ITEMS);
      assert.ok(done.ok);
      assert.deepEqual(await tradesRepo.inventoriesIfCompleted(inDoubt), [done.inventoryA, done.inventoryB]);
      assert.deepEqual(done.inventoryA, await inventoryOf("alice"));
    });

    // A swap's commit still in flight holds its history row's id; PGlite runs one transaction at a time.
    if (backend.name === "postgres") {
      for (const ending of ["commits", "rolls back"] as const) {
        it(`waits, when asked whether a trade committed, for a swap's transaction that still holds it (${ending})`, async () => {
          await given([{ slot: 0, itemId: "coins", quantity: 10 }], []);
          const inDoubt = trade("t-in-flight", [offer(0, "coins", 4)], []);
          let end!: () => void;
          const ended = new Promise<void>((resolve) => {
            end = resolve;
          });
          const inFlight = handle.db
            .transaction(async (tx) => {
              await tx.execute(
                sql`insert into trades (id, player_a, player_b, gave_a, gave_b) values ('t-in-flight', 'alice', 'bob', '[]', '[]')`,
              );
              await ended;
              if (ending === "rolls back") throw new Error("rolled back");
            })
            .catch(() => {});
          await sleep(100);
          let answered = false;
          const asked = tradesRepo.inventoriesIfCompleted(inDoubt).finally(() => {
            answered = true;
          });
          await sleep(300);
          assert.equal(answered, false, "no answer while the swap's transaction holds the id");
          end();
          await inFlight;
          if (ending === "commits") assert.ok(await asked, "committed");
          else assert.equal(await asked, undefined, "not committed");
        });
      }
    }

    it("swaps both offers, merging a received stackable into the existing stack", async () => {
      await given(
        [
          { slot: 0, itemId: "coins", quantity: 500 },
          { slot: 3, itemId: "bronze_sword", quantity: 1 },
          { slot: 4, itemId: "logs", quantity: 1 },
        ],
        [
          { slot: 0, itemId: "logs", quantity: 1 },
          { slot: 1, itemId: "logs", quantity: 1 },
          { slot: 2, itemId: "coins", quantity: 100 },
        ],
      );
      const outcome = await tradesRepo.complete(
        trade(
          "t1",
          [offer(0, "coins", 200), offer(3, "bronze_sword", 1)],
          [offer(0, "logs", 1), offer(1, "logs", 1)],
        ),
        ITEMS,
      );

      const alice = [
        { slot: 0, itemId: "coins", quantity: 300 },
        { slot: 1, itemId: "logs", quantity: 1 },
        { slot: 2, itemId: "logs", quantity: 1 },
        { slot: 4, itemId: "logs", quantity: 1 },
      ];
      const bob = [
        { slot: 0, itemId: "bronze_sword", quantity: 1 },
        { slot: 2, itemId: "coins", quantity: 300 },
      ];
      assert.deepEqual(outcome, {
        ok: true,
        inventoryA: alice,
        inventoryB: bob,
        receivedA: [{ itemId: "logs", quantity: 2 }],
        receivedB: [
          { itemId: "coins", quantity: 200 },
          { itemId: "bronze_sword", quantity: 1 },
        ],
      });
      assert.deepEqual(await inventoryOf("alice"), alice, "the stored inventory is the one returned");
      assert.deepEqual(await inventoryOf("bob"), bob);
    });

    describe("re-checks every offered slot at commit and moves nothing when one no longer holds", () => {
      const bob = [{ slot: 0, itemId: "logs", quantity: 1 }];
      const theTrade = trade("t1", [offer(5, "coins", 100)], [offer(0, "logs", 1)]);

      for (const [change, alice] of [
        ["the item left the slot", []],
        ["the quantity dropped below the offer", [{ slot: 5, itemId: "coins", quantity: 99 }]],
        ["the slot now holds another item", [{ slot: 5, itemId: "bronze_sword", quantity: 1 }]],
      ] as const) {
        it(change, async () => {
          await given([{ slot: 5, itemId: "coins", quantity: 100 }], bob);
          await worldStore.save({
            characters: [{ state: character("alice", [...alice]), parts: ["inventory"] }],
          });
          assert.deepEqual(await tradesRepo.complete(theTrade, ITEMS), {
            ok: false,
            reason: "insufficient_items",
          });
          await assertNothingMoved([...alice], bob);
        });
      }
    });

    it("undoes a committed swap with the world's write of both inventories, its history row with it", async () => {
      const [alice, bob] = [
        [{ slot: 0, itemId: "coins", quantity: 10 }],
        [{ slot: 3, itemId: "logs", quantity: 1 }],
      ];
      await given(alice, bob);
      assert.equal(
        (await tradesRepo.complete(trade("t-undone", [offer(0, "coins", 4)], []), ITEMS)).ok,
        true,
      );
      await worldStore.save({
        characters: [
          { state: character("alice", alice), parts: ["inventory"] },
          { state: character("bob", bob), parts: ["inventory"] },
        ],
        undoneTrades: ["t-undone"],
      });
      await assertNothingMoved(alice, bob);
    });

    it("moves nothing when the receiver has no free slot, but counts the slots the receiver gives away", async () => {
      const alice = [{ slot: 0, itemId: "bronze_sword", quantity: 1 }];
      await given(alice, logsInEverySlot());
      assert.deepEqual(await tradesRepo.complete(trade("t1", [offer(0, "bronze_sword", 1)], []), ITEMS), {
        ok: false,
        reason: "inventory_full",
      });
      await assertNothingMoved(alice, logsInEverySlot());

      const swapped = await tradesRepo.complete(
        trade("t2", [offer(0, "bronze_sword", 1)], [offer(7, "logs", 1)]),
        ITEMS,
      );
      assert.equal(swapped.ok, true);
      assert.deepEqual((await inventoryOf("bob"))?.[7], { slot: 7, itemId: "bronze_sword", quantity: 1 });
    });

    it("moves nothing when a received stack would pass MAX_STACK, and fills it exactly to the limit", async () => {
      const alice = [{ slot: 0, itemId: "coins", quantity: 50 }];
      const bob = [{ slot: 9, itemId: "coins", quantity: MAX_STACK - 10 }];
      await given(alice, bob);
      assert.deepEqual(await tradesRepo.complete(trade("t1", [offer(0, "coins", 11)], []), ITEMS), {
        ok: false,
        reason: "inventory_full",
      });
      await assertNothingMoved(alice, bob);

      assert.equal((await tradesRepo.complete(trade("t2", [offer(0, "coins", 10)], []), ITEMS)).ok, true);
      assert.deepEqual(await inventoryOf("bob"), [{ slot: 9, itemId: "coins", quantity: MAX_STACK }]);
      assert.deepEqual(await inventoryOf("alice"), [{ slot: 0, itemId: "coins", quantity: 40 }]);
    });

    it("records exactly the completed trades in both players' history", async () => {
      await given([{ slot: 0, itemId: "coins", quantity: 100 }], [{ slot: 0, itemId: "logs", quantity: 1 }]);
      await tradesRepo.complete(trade("refused", [offer(0, "coins", 101)], []), ITEMS);
      await tradesRepo.complete(trade("done", [offer(0, "coins", 60)], [offer(0, "logs", 1)]), ITEMS);

      const history = await tradesRepo.history("alice");
      assert.deepEqual(
        history.map(({ id, playerA, playerB, gaveA, gaveB }) => ({ id, playerA, playerB, gaveA, gaveB })),
        [
          {
            id: "done",
            playerA: "alice",
            playerB: "bob",
            gaveA: [{ itemId: "coins", quantity: 60 }],
            gaveB: [{ itemId: "logs", quantity: 1 }],
          },
        ],
      );
      assert.ok(history[0]?.completedAt instanceof Date);
      assert.deepEqual(await tradesRepo.history("bob"), history);
    });

    it("moves the items of one trade id once, even when completed twice at the same time", async () => {
      await given([{ slot: 0, itemId: "coins", quantity: 500 }], []);
      const theTrade = trade("t1", [offer(0, "coins", 100)], []);
      const outcomes = await Promise.all([
        tradesRepo.complete(theTrade, ITEMS),
        tradesRepo.complete(theTrade, ITEMS),
      ]);
      assert.deepEqual(outcomes.map((outcome) => outcome.ok).sort(), [false, true]);
      assert.deepEqual(await tradesRepo.complete(theTrade, ITEMS), {
        ok: false,
        reason: "already_completed",
      });

      assert.deepEqual(await inventoryOf("alice"), [{ slot: 0, itemId: "coins", quantity: 400 }]);
      assert.deepEqual(await inventoryOf("bob"), [{ slot: 0, itemId: "coins", quantity: 100 }]);
      assert.equal((await tradesRepo.history("alice")).length, 1);
    });

    it("refuses a trade with oneself or with a character that does not exist", async () => {
      const alice = [{ slot: 0, itemId: "coins", quantity: 500 }];
      await given(alice, []);
      const withSelf = {
        tradeId: "t1",
        a: { characterId: "alice", offer: [] },
        b: { characterId: "alice", offer: [] },
      };
      assert.deepEqual(await tradesRepo.complete(withSelf, ITEMS), { ok: false, reason: "self_trade" });
      const withNobody = {
        tradeId: "t2",
        a: { characterId: "alice", offer: [offer(0, "coins", 5)] },
        b: { characterId: "ghost", offer: [] },
      };
      assert.deepEqual(await tradesRepo.complete(withNobody, ITEMS), {
        ok: false,
        reason: "character_not_found",
      });
      await assertNothingMoved(alice, []);
    });
  });
}
