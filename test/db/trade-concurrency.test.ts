// Hundreds of trades with overlapping partners committing at once on a real PostgreSQL pool, while
// world saves lock the same rows and players use up items mid-trade: afterwards every item is
// accounted for. PGlite runs one transaction at a time, so only PostgreSQL can show a race here.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { CharacterRepository, type CharacterSave } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import {
  type CompletedTrade,
  type TradeCompletion,
  type TradeOutcome,
  TradeRepository,
} from "../../src/db/trades.js";
import { WorldStore } from "../../src/db/world-store.js";
import type { CharacterState, InventoryEntry } from "../../src/game/character-state.js";
import { removeFromSlot } from "../../src/game/inventory.js";
import { type Random, randomInt, seededRandom } from "../../src/game/random.js";
import type { TradeOffer } from "../../src/game/trade.js";
import { type ItemDef, type ItemQuantity, MAX_STACK } from "../../src/game/types.js";
import { plainCharacter } from "../support/characters.js";
import { openFreshPostgres, postgresUrl } from "../support/databases.js";

const POOL_SIZE = 16;
const CHARACTER_COUNT = 30;
const TRADE_COUNT = 300;
const WORLD_LOOPS = 3;
/** Trades start spread over this window, so hundreds are in flight together. */
const START_WINDOW_MS = 1500;
const CANCEL_CHANCE = 0.15;

const ITEMS: ReadonlyMap<string, ItemDef> = new Map(
  [
    { id: "coins", stackable: true },
    { id: "arrows", stackable: true },
    { id: "logs", stackable: false },
    { id: "shrimp", stackable: false },
    { id: "bronze_sword", stackable: false },
  ].map(({ id, stackable }) => [id, { id, name: id, type: "misc", value: 1, stackable, tradeable: true }]),
);
const ITEM_IDS = [...ITEMS.keys()];

/** item id → quantity, summed over entries. */
type Tally = Map<string, number>;

function tally(entries: readonly ItemQuantity[], into: Tally = new Map(), sign = 1): Tally {
  for (const { itemId, quantity } of entries) into.set(itemId, (into.get(itemId) ?? 0) + sign * quantity);
  return into;
}

function withoutZeros(counts: Tally): Tally {
  return new Map([...counts].filter(([, quantity]) => quantity !== 0).sort(([a], [b]) => a.localeCompare(b)));
}

function randomInventory(random: Random, nearlyFullCoins: boolean): InventoryEntry[] {
  const entries: InventoryEntry[] = [];
  const stacked = new Set<string>();
  for (let slot = 0; slot < 28; slot++) {
    if (random() < 0.45) continue;
    const itemId = ITEM_IDS[randomInt(random, 0, ITEM_IDS.length - 1)] as string;
    if (!ITEMS.get(itemId)?.stackable) entries.push({ slot, itemId, quantity: 1 });
    else if (!stacked.has(itemId)) {
      stacked.add(itemId);
      // A few stacks sit just under the limit, so receiving more must be refused rather than wrap.
      const quantity =
        itemId === "coins" && nearlyFullCoins
          ? MAX_STACK - randomInt(random, 0, 500)
          : randomInt(random, 1, 100_000);
      entries.push({ slot, itemId, quantity });
    }
  }
  return entries;
}

function character(id: string, inventory: InventoryEntry[]): CharacterState {
  return plainCharacter(id, { inventory });
}

function randomOffer(random: Random, inventory: readonly InventoryEntry[]): TradeOffer[] {
  const shuffled = [...inventory].sort(() => random() - 0.5);
  return shuffled.slice(0, randomInt(random, 0, 3)).map(({ slot, itemId, quantity }) => ({
    inventorySlot: slot,
    itemId,
    quantity: ITEMS.get(itemId)?.stackable ? randomInt(random, 1, quantity) : 1,
  }));
}

/**
 * The rule the world must follow, modelled here: a character's inventory is never written from a
 * copy read before one of its trades committed. So inventory writes wait for that character's
 * commits to finish and commits wait for its inventory writes; position saves go on regardless and
 * contend with the commits for the same row locks, as the per-tick save does.
 */
class CharacterGate {
  private readonly commits = new Map<string, number>();
  private readonly worldWriting = new Set<string>();
  private waiters: (() => void)[] = [];

  async beginCommit(ids: readonly string[]): Promise<void> {
    while (ids.some((id) => this.worldWriting.has(id)))
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    for (const id of ids) this.commits.set(id, (this.commits.get(id) ?? 0) + 1);
  }

  endCommit(ids: readonly string[]): void {
    for (const id of ids) this.commits.set(id, (this.commits.get(id) ?? 1) - 1);
    this.wakeWaiters();
  }

  /** Up to `count` of the candidates that no commit or other world write is touching, now claimed. */
  claimForWorld(candidates: readonly string[], count: number): string[] {
    const free = candidates
      .filter((id) => !this.commits.get(id) && !this.worldWriting.has(id))
      .slice(0, count);
    for (const id of free) this.worldWriting.add(id);
    return free;
  }

  releaseWorld(ids: readonly string[]): void {
    for (const id of ids) this.worldWriting.delete(id);
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }
}

interface TradeRecord {
  completion: TradeCompletion;
  outcome: TradeOutcome;
}

const describeOnPostgres = postgresUrl ? describe : describe.skip;
const skipNote = postgresUrl ? "" : " (skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it)";

describeOnPostgres(`concurrent trades on PostgreSQL${skipNote}`, function () {
  this.timeout(60_000);
  let handle: DatabaseHandle;

  before(async () => {
    handle = await openFreshPostgres(postgresUrl as string, POOL_SIZE);
  });
  after(() => handle.close());

  it("keeps every item accounted for under overlapping trades, world saves and items used mid-trade", async () => {
    const random = seededRandom(8);
    const charactersRepo = new CharacterRepository(handle.db);
    const worldStore = new WorldStore(handle.db);
    const tradesRepo = new TradeRepository(handle.db);
    const ids = Array.from({ length: CHARACTER_COUNT }, (_, i) => `c${String(i).padStart(2, "0")}`);
    const initial = new Map(ids.map((id, i) => [id, randomInventory(random, i % 10 === 0)]));
    await Promise.all(ids.map((id) => charactersRepo.create(null, character(id, initial.get(id) ?? []))));

    const gate = new CharacterGate();
    const consumed = new Map(ids.map((id) => [id, new Map() as Tally]));
    const completedTrades: TradeRecord[] = [];
    let cancelled = 0;
    const loadInventory = async (id: string) => (await charactersRepo.load(id))?.inventory ?? [];
    const pickTwo = () => {
      const a = ids[randomInt(random, 0, ids.length - 1)] as string;
      const others = ids.filter((id) => id !== a);
      return [a, others[randomInt(random, 0, others.length - 1)] as string] as const;
    };

    async function playTrade(n: number): Promise<void> {
      await sleep(randomInt(random, 0, START_WINDOW_MS));
      const [a, b] = pickTwo();
      // The offers are built from what the players saw, which other trades and the world may change.
      const [seenA, seenB] = await Promise.all([loadInventory(a), loadInventory(b)]);
      const completion: TradeCompletion = {
        tradeId: `trade-${n}`,
        a: { characterId: a, offer: randomOffer(random, seenA) },
        b: { characterId: b, offer: randomOffer(random, seenB) },
      };
      await sleep(randomInt(random, 0, 30));
      if (random() < CANCEL_CHANCE) {
        cancelled++;
        return;
      }
      await gate.beginCommit([a, b]);
      try {
        completedTrades.push({ completion, outcome: await tradesRepo.complete(completion, ITEMS) });
      } finally {
        gate.endCommit([a, b]);
      }
    }

    /** One world save: some characters use, eat or drop an item; many more only move. */
    async function worldSave(): Promise<void> {
      const shuffled = [...ids].sort(() => random() - 0.5);
      const users = gate.claimForWorld(shuffled, 3);
      try {
        const saves: CharacterSave[] = [];
        for (const id of users) {
          const state = await charactersRepo.load(id);
          const entry = state?.inventory[randomInt(random, 0, state.inventory.length - 1)];
          if (!state || !entry) continue;
          const taken = removeFromSlot(
            state.inventory,
            entry.slot,
            randomInt(random, 1, Math.min(entry.quantity, 1000)),
          );
          tally([{ itemId: entry.itemId, quantity: taken.removed }], consumed.get(id));
          saves.push({ state: { ...state, inventory: taken.inventory }, parts: ["inventory"] });
        }
        const movers = shuffled.filter((id) => !users.includes(id)).slice(0, 12);
        for (const id of movers) saves.push({ state: character(id, []), parts: ["position"] });
        await worldStore.save({ characters: saves });
      } finally {
        gate.releaseWorld(users);
      }
    }

    let tradesRunning = true;
    async function worldLoop(): Promise<void> {
      while (tradesRunning) {
        await worldSave();
        await sleep(randomInt(random, 1, 10));
      }
    }

    const world = Promise.all(Array.from({ length: WORLD_LOOPS }, worldLoop));
    await Promise.all(Array.from({ length: TRADE_COUNT }, (_, n) => playTrade(n))).finally(() => {
      tradesRunning = false;
    });
    await world;

    const outcomesByReason = tally(
      completedTrades.map(({ outcome }) => ({
        itemId: outcome.ok ? "completed" : outcome.reason,
        quantity: 1,
      })),
    );
    assert.equal(completedTrades.length + cancelled, TRADE_COUNT);
    assert.deepEqual(
      [...outcomesByReason.keys()].filter(
        (reason) => !["completed", "insufficient_items", "inventory_full"].includes(reason),
      ),
      [],
      "no trade failed for any reason but its items: no deadlock, no conflict",
    );
    assert.ok(
      (outcomesByReason.get("completed") ?? 0) >= 50,
      `too few trades completed: ${[...outcomesByReason]}`,
    );
    assert.ok((outcomesByReason.get("insufficient_items") ?? 0) > 0, "no trade met a stale offer");

    const final = new Map(await Promise.all(ids.map(async (id) => [id, await loadInventory(id)] as const)));
    for (const [id, entries] of final) {
      const slots = entries.map((entry) => entry.slot);
      assert.equal(new Set(slots).size, slots.length, `${id} has two rows in one slot`);
      for (const entry of entries) {
        assert.ok(entry.slot >= 0 && entry.slot < 28, `${id} slot ${entry.slot}`);
        assert.ok(entry.quantity >= 1 && entry.quantity <= MAX_STACK, `${id} quantity ${entry.quantity}`);
      }
    }

    const totalOf = (inventories: Iterable<readonly ItemQuantity[]>) => tally([...inventories].flat());
    const expectedTotal = totalOf(initial.values());
    for (const used of consumed.values())
      tally(
        [...used].map(([itemId, quantity]) => ({ itemId, quantity })),
        expectedTotal,
        -1,
      );
    assert.deepEqual(
      withoutZeros(totalOf(final.values())),
      withoutZeros(expectedTotal),
      "item totals changed",
    );

    // Replaying each character's history on its initial inventory gives its final one, item by item.
    const history = new Map<string, CompletedTrade>();
    for (const id of ids) {
      const expected = tally(initial.get(id) ?? []);
      tally(
        [...(consumed.get(id) ?? [])].map(([itemId, quantity]) => ({ itemId, quantity })),
        expected,
        -1,
      );
      for (const row of await tradesRepo.history(id)) {
        history.set(row.id, row);
        const [gave, got] = row.playerA === id ? [row.gaveA, row.gaveB] : [row.gaveB, row.gaveA];
        tally(got, expected);
        tally(gave, expected, -1);
      }
      assert.deepEqual(withoutZeros(tally(final.get(id) ?? [])), withoutZeros(expected), `${id}'s items`);
    }

    const completed = completedTrades.filter(({ outcome }) => outcome.ok);
    assert.deepEqual(
      [...history.keys()].sort(),
      completed.map(({ completion }) => completion.tradeId).sort(),
      "the history holds exactly the completed trades",
    );
    for (const { completion, outcome } of completed) {
      const row = history.get(completion.tradeId);
      assert.deepEqual(outcome.ok && [outcome.receivedA, outcome.receivedB], [row?.gaveB, row?.gaveA]);
    }
  });
});
