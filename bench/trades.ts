// Trade commits per second and accept-to-commit latency through TradeRepository.complete, beside a
// hand-written transaction of the same shape on the same database in the same run.
//   npx tsx bench/trades.ts [--trades N] [--concurrency C]
// PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL (default the local server; a fresh database
// is created and dropped), then PGlite in memory.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { CharacterRepository } from "../src/db/characters.js";
import type { DatabaseHandle } from "../src/db/database.js";
import { openDatabase } from "../src/db/database.js";
import { TradeRepository } from "../src/db/trades.js";
import type { CharacterState, InventoryEntry } from "../src/game/character-state.js";
import type { ItemDef } from "../src/game/types.js";
import { plainCharacter } from "../test/support/characters.js";
import { openFreshPostgres } from "../test/support/databases.js";
import { percentiles } from "./stats.js";

const { values: args } = parseArgs({
  options: { trades: { type: "string", default: "2000" }, concurrency: { type: "string", default: "16" } },
});
const TRADES = Number(args.trades);
const CONCURRENCY = Number(args.concurrency);
const CHARACTERS = 500;
const WARM_UP_TRADES = 500;
/** Rounds alternate which of the two goes first, so neither always meets a fresher database. */
const ROUNDS = 3;
const POSTGRES_URL =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";

// Every character holds coins in slot 0, arrows in slot 1 and 18 more items, so the layout each
// trade expects survives all earlier trades: A gives coins, B gives arrows, each joins a stack.
const ITEMS: ReadonlyMap<string, ItemDef> = new Map(
  [
    { id: "coins", stackable: true },
    { id: "arrows", stackable: true },
    { id: "logs", stackable: false },
  ].map(({ id, stackable }) => [id, { id, name: id, type: "misc", value: 1, stackable, tradeable: true }]),
);
const STARTING_INVENTORY: InventoryEntry[] = [
  { slot: 0, itemId: "coins", quantity: 1_000_000 },
  { slot: 1, itemId: "arrows", quantity: 1_000_000 },
  ...Array.from({ length: 18 }, (_, i) => ({ slot: i + 2, itemId: "logs", quantity: 1 })),
];

interface Pair {
  tradeId: string;
  a: string;
  b: string;
}

/** One complete trade: both players' rows locked, inventories re-read, swapped, history written. */
type TradeCommit = (pair: Pair) => Promise<void>;

interface Timings {
  latencies: number[];
  seconds: number;
}

function character(id: string): CharacterState {
  return plainCharacter(id, { inventory: STARTING_INVENTORY });
}

function pairs(prefix: string, count: number): Pair[] {
  return Array.from({ length: count }, (_, n) => {
    const a = Math.floor(Math.random() * CHARACTERS);
    const b = (a + 1 + Math.floor(Math.random() * (CHARACTERS - 1))) % CHARACTERS;
    return { tradeId: `${prefix}-${n}`, a: `c${a}`, b: `c${b}` };
  });
}

/** Runs the trades with CONCURRENCY in flight at a time; latency is from the call to its commit. */
async function measure(commit: TradeCommit, trades: readonly Pair[], into: Timings): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let pair = trades[next++]; pair; pair = trades[next++]) {
      const start = performance.now();
      await commit(pair);
      into.latencies.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  into.seconds += (performance.now() - start) / 1000;
}

function summary(name: string, { latencies, seconds }: Timings): string {
  const { p50, p99 } = percentiles(latencies);
  const perSecond = (latencies.length / seconds).toFixed(0).padStart(7);
  const ms = (value: number) => value.toFixed(2).padStart(7);
  return `  ${name.padEnd(16)} ${perSecond} trades/s   p50 ${ms(p50)} ms   p99 ${ms(p99)} ms`;
}

function repositoryCommit(handle: DatabaseHandle): TradeCommit {
  const repo = new TradeRepository(handle.db);
  return async ({ tradeId, a, b }) => {
    const outcome = await repo.complete(
      {
        tradeId,
        a: { characterId: a, offer: [{ inventorySlot: 0, itemId: "coins", quantity: 1 }] },
        b: { characterId: b, offer: [{ inventorySlot: 1, itemId: "arrows", quantity: 1 }] },
      },
      ITEMS,
    );
    if (!outcome.ok) throw new Error(`trade ${tradeId} refused: ${outcome.reason}`);
  };
}

/** The minimum any implementation needs: the same statements, written by hand, no checks. */
const RAW_STATEMENTS = {
  lock: "select id from characters where id in ($1, $2) order by id for update",
  read: "select character_id, slot, item_id, quantity from inventory where character_id in ($1, $2) for update",
  history: `insert into trades (id, player_a, player_b, gave_a, gave_b) values ($1, $2, $3,
              '[{"itemId":"coins","quantity":1}]', '[{"itemId":"arrows","quantity":1}]')`,
  swap: `insert into inventory (character_id, slot, item_id, quantity) values
           ($1, 0, 'coins', $3), ($1, 1, 'arrows', $4), ($2, 0, 'coins', $5), ($2, 1, 'arrows', $6)
         on conflict (character_id, slot) do update set item_id = excluded.item_id, quantity = excluded.quantity`,
};

type Query = (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>;

async function rawTrade(query: Query, { tradeId, a, b }: Pair): Promise<void> {
  await query(RAW_STATEMENTS.lock, [a, b]);
  await query(RAW_STATEMENTS.history, [tradeId, a, b]);
  const rows = (await query(RAW_STATEMENTS.read, [a, b])).rows as {
    character_id: string;
    slot: number;
    quantity: number;
  }[];
  const held = (id: string, slot: number) =>
    rows.find((row) => row.character_id === id && row.slot === slot)?.quantity ?? 0;
  await query(RAW_STATEMENTS.swap, [a, b, held(a, 0) - 1, held(a, 1) + 1, held(b, 0) + 1, held(b, 1) - 1]);
}

/** The raw transaction on the very pool or embedded instance the repository uses. */
function rawCommit(handle: DatabaseHandle): TradeCommit {
  const client = (handle.db as unknown as { $client: pg.Pool | PGlite }).$client;
  if (handle.kind === "pglite") {
    const embedded = client as PGlite;
    return (pair) => embedded.transaction((tx) => rawTrade((text, params) => tx.query(text, params), pair));
  }
  const pool = client as pg.Pool;
  return async (pair) => {
    const connection = await pool.connect();
    try {
      await connection.query("begin");
      await rawTrade((text, params) => connection.query(text, params), pair);
      await connection.query("commit");
    } catch (error) {
      await connection.query("rollback");
      throw error;
    } finally {
      connection.release();
    }
  };
}

async function benchmark(label: string, handle: DatabaseHandle): Promise<void> {
  console.log(`\n${label}: seeding ${CHARACTERS} characters`);
  const characters = new CharacterRepository(handle.db);
  for (let i = 0; i < CHARACTERS; i++) await characters.create(null, character(`c${i}`));
  const repository = repositoryCommit(handle);
  const raw = rawCommit(handle);

  const timings = { repository: { latencies: [], seconds: 0 }, raw: { latencies: [], seconds: 0 } };
  const contenders = [
    { name: "repository" as const, commit: repository, description: "TradeRepository.complete" },
    { name: "raw" as const, commit: raw, description: "a raw SQL transaction" },
  ];

  console.log(`${label}: warming up`);
  for (const { name, commit } of contenders)
    await measure(commit, pairs(`warm-${name}`, WARM_UP_TRADES), { latencies: [], seconds: 0 });
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, commit, description } of round % 2 === 0 ? contenders : [...contenders].reverse()) {
      console.log(
        `${label}: round ${round + 1}/${ROUNDS}, ${TRADES} trades through ${description}, ${CONCURRENCY} at a time`,
      );
      await measure(commit, pairs(`${name}-${round}`, TRADES), timings[name]);
    }
  }

  const perSecond = ({ latencies, seconds }: Timings) => latencies.length / seconds;
  console.log(summary("TradeRepository", timings.repository));
  console.log(summary("raw SQL", timings.raw));
  console.log(
    `  throughput ratio (repository / raw): ${(perSecond(timings.repository) / perSecond(timings.raw)).toFixed(2)}`,
  );
}

async function run(label: string, open: () => Promise<DatabaseHandle>): Promise<void> {
  const handle = await open();
  try {
    await benchmark(label, handle);
  } finally {
    await handle.close();
  }
}

await run(`PostgreSQL (${new URL(POSTGRES_URL).host}, pool ${CONCURRENCY})`, () =>
  openFreshPostgres(POSTGRES_URL, CONCURRENCY),
);
await run("PGlite (in memory)", () => openDatabase({}));
