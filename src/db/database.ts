import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { MIGRATIONS_DIR as MIGRATIONS_FOLDER } from "../config/paths.js";
import { StartupError } from "../config/startup-error.js";
import { within } from "../limits/time-limit.js";
import { exposedGc } from "../tuning/exposed-gc.js";
import { abandonQueries, type BusyConnections, boundedClient, ReleasingPool } from "./bounded-client.js";
import { lockDataDir } from "./data-dir-lock.js";
import { giveBack, keepTemplate, keptTemplate, leasedClient, takeIdleDatabase } from "./in-memory-reuse.js";
import { migrateInTurn, refuseNewerSchema } from "./migrations.js";
import * as schema from "./schema.js";
import { type ClaimNews, claimDatabase, type ServerClaim } from "./server-claim.js";

export type Schema = typeof schema;
/** The one query interface both backends implement. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** What repositories take: the database or a transaction on it. */
export type Executor = Pick<Database, "select" | "insert" | "update" | "delete" | "execute">;

export interface DatabaseHandle {
  db: Database;
  /**
   * The world's writes (ticks, trades' swaps, its lease): on PostgreSQL, connections of their own, so that
   * slow REST reads, health checks and logins never keep a tick's write waiting for one.
   */
  worldDb: Database;
  kind: "pglite" | "postgres";
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * Gives up on the world's queries that have run longer than `olderThanMs` (a shutdown ending a hung
   * write); their connections are closed. How many there were.
   */
  abandonWorldQueries(olderThanMs: number): number;
  close(): Promise<void>;
}

/** How long queries may take, and how silent connections are found (see DatabaseOptions.timeouts). */
export interface DatabaseTimeouts {
  /** PostgreSQL cancels a statement that runs longer (`statement_timeout`). */
  statementMs: number;
  /** A query unanswered this long has its connection closed: the connection went silent. */
  queryMs: number;
  /** Idle time after which TCP keepalive probes check a connection. */
  keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: DatabaseTimeouts = { statementMs: 5000, queryMs: 10_000, keepAliveMs: 10_000 };

export interface DatabaseOptions {
  /** PostgreSQL connection string; the embedded database is used when absent. */
  url?: string;
  /** Folder of the embedded database's files; in memory when absent. */
  dataDir?: string;
  poolSize?: number;
  timeouts?: DatabaseTimeouts;
  /** A server process's claim on a PostgreSQL database (see server-claim.ts); none by default. */
  claim?: ServerClaim;
  /** Hears what becomes of the claim after its connection drops. */
  onClaimNews?: (news: ClaimNews) => void;
}

/** Opens the configured database and applies pending migrations. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.url
    ? openPostgres(options.url, options.poolSize ?? 10, options.timeouts ?? DEFAULT_TIMEOUTS, options)
    : openPglite(options.dataDir);
}

/**
 * How long PostgreSQL lets a transaction sit idle before ending it. The server's transactions run their
 * statements back to back, so one idle this long belongs to a stalled process (one that does not answer
 * for as long is taken for dead and its world opened elsewhere). Ending it releases its row locks: held,
 * the world lease's share lock would keep the world that replaces it from opening until the stall ends.
 */
export const STALLED_TRANSACTION_MS = 5000;

/** How long closing waits for the connections' goodbyes (see openPostgres's `end`). */
const CLOSE_WAIT_MS = 1000;

/** How long a query waits for a connection of the pool before it fails. */
export const CONNECTION_WAIT_MS = 5000;

/**
 * The world's connections: its writes run one transaction at a time, and a second lets a retry start
 * while a silent one is being given up on.
 */
const WORLD_POOL_SIZE = 2;

async function openPostgres(
  url: string,
  poolSize: number,
  timeouts: DatabaseTimeouts,
  { claim, onClaimNews }: Pick<DatabaseOptions, "claim" | "onClaimNews">,
): Promise<DatabaseHandle> {
  const worldBusy: BusyConnections = new Map();
  const otherBusy: BusyConnections = new Map();
  const newPool = (max: number, busy: BusyConnections) => {
    const pool = new ReleasingPool({
      connectionString: url,
      max,
      connectionTimeoutMillis: CONNECTION_WAIT_MS,
      idle_in_transaction_session_timeout: STALLED_TRANSACTION_MS,
      statement_timeout: timeouts.statementMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: timeouts.keepAliveMs,
      Client: boundedClient(timeouts.queryMs, busy),
    });
    // A client losing its connection, idle or checked out, must not crash the process: the query under
    // way or the next one reports it.
    pool.on("error", () => {});
    pool.on("connect", (client) => client.on("error", () => {}));
    return pool;
  };
  const pool = newPool(poolSize, otherBusy);
  const worldPool = newPool(WORLD_POOL_SIZE, worldBusy);
  const db = drizzlePg(pool, { schema });
  let unclaim = async () => {};
  const end = async () => {
    // Whatever still waits for a silent connection at the end is given up on, not waited for; and so is
    // the goodbye of an idle one, which a silent connection never answers.
    abandonQueries(otherBusy, 0);
    abandonQueries(worldBusy, 0);
    await within(Promise.all([pool.end(), worldPool.end(), unclaim()]), CLOSE_WAIT_MS, undefined);
  };
  try {
    await migrateInTurn(url, CONNECTION_WAIT_MS, async () => {
      await refuseNewerSchema(db as unknown as Database);
      await migratePg(db, { migrationsFolder: MIGRATIONS_FOLDER });
    });
    if (claim) unclaim = await claimDatabase(url, claim, onClaimNews);
  } catch (error) {
    await end();
    if (error instanceof StartupError) throw error;
    throw new StartupError(
      `Cannot prepare the PostgreSQL database at DATABASE_URL: ${innermostMessage(error)}. ` +
        "Check DATABASE_URL and that its server is running, or unset it to use the embedded database.",
      { cause: error },
    );
  }
  return {
    db: db as unknown as Database,
    worldDb: drizzlePg(worldPool, { schema }) as unknown as Database,
    kind: "postgres",
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    abandonWorldQueries: (olderThanMs) => {
      return abandonQueries(worldBusy, olderThanMs);
    },
    close: end,
  };
}

/**
 * PostgreSQL zero-fills each new 16 MB WAL segment by default. In PGlite's in-memory file system
 * (PGLITE_STORAGE=memory, the world benchmark) that stalls the server's one thread for 100-250 ms every
 * 16 MB of writes, every two or three minutes in a busy world (bench/tick-writes.ts). The embedded
 * database runs with fsync off, so preallocated segments guard nothing on disk either.
 *
 * Its buffer cache is 32 MB, not PostgreSQL's 128: the embedded server used 65 MB less at rest (296
 * against 361 MB), and 2,000 characters' tick writes took no longer (bench/tick-writes.ts, 9.9 ms p50).
 */
const EMBEDDED_SETTINGS = ["-c", "wal_init_zero=off", "-c", "shared_buffers=32MB"];

/** The files of a freshly migrated in-memory database, once startInMemoryDatabasesFromTemplate asks for them. */
let template: Promise<Blob> | undefined;

/**
 * Starts every in-memory database after the first from a copy of the first one's files as they were
 * once migrated (kept on disk for the next process too): PGlite's initdb takes seconds, loading those
 * files under one. A closed one is emptied and given to the next open, which takes milliseconds. For a
 * process that opens many (the test suite); the copy takes some 40 MB for as long as the process lives.
 */
export function startInMemoryDatabasesFromTemplate(): void {
  (globalThis as Record<symbol, unknown>)[REUSE_IN_MEMORY] = true;
}

/**
 * A flag of the process, not of this module: the suite's setup file is loaded as CommonJS, its tests as
 * ES modules, and each has its own copy of this module.
 */
const REUSE_IN_MEMORY = Symbol.for("tileworld.reuseInMemoryDatabases");
const reuseInMemory = () => (globalThis as Record<symbol, unknown>)[REUSE_IN_MEMORY] === true;

async function openPglite(dataDir: string | undefined): Promise<DatabaseHandle> {
  if (dataDir) mkdirSync(path.dirname(dataDir), { recursive: true });
  const unlock = dataDir ? await lockDataDir(dataDir) : () => {};
  try {
    return await startPglite(dataDir, unlock);
  } catch (error) {
    unlock();
    if (!dataDir || error instanceof StartupError) throw error;
    throw new StartupError(
      `Cannot open the embedded database in ${dataDir}: ${innermostMessage(error)}. ` +
        "It may have been made by another version of the embedded database (PGlite): move it aside to " +
        "start afresh, or set DATA_DIR to another folder.",
      { cause: error },
    );
  }
}

/** The message of the error at the bottom of `error`'s causes: the query wrappers' say only which query. */
function innermostMessage(error: unknown): string {
  let innermost = error;
  for (let depth = 0; depth < 10 && innermost instanceof Error && innermost.cause instanceof Error; depth++)
    innermost = innermost.cause;
  return innermost instanceof Error ? innermost.message : String(innermost);
}

async function startPglite(dataDir: string | undefined, unlock: () => void): Promise<DatabaseHandle> {
  const inMemory = dataDir === undefined;
  const reuse = inMemory && reuseInMemory();
  if (reuse && !template) {
    const kept = keptTemplate(EMBEDDED_SETTINGS);
    if (kept) template = Promise.resolve(kept);
  }
  const reused = reuse ? takeIdleDatabase() : undefined;
  const client = reused ?? (await newPglite(dataDir));
  // A handle of its own over the client: queries through it are refused once it is closed.
  const { lease, end } = leasedClient(client);
  const db = drizzlePglite(lease, { schema });
  if (!reused) {
    try {
      await refuseNewerSchema(db as unknown as Database);
      await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
  }
  if (reuse && !template) {
    template = client.dumpDataDir("none");
    // Without a copy, the next in-memory databases start the slow way.
    await template.then(
      (files) => keepTemplate(EMBEDDED_SETTINGS, files),
      () => {
        template = undefined;
      },
    );
  }
  // PGlite makes a new database (an in-memory one every time) with a second WebAssembly instance,
  // initdb, and lets go of it on a later turn of the event loop: some 300 MB that V8 would keep until
  // its next full collection, which a quiet server may not run for hours. One collection then gives
  // them back.
  if (!reused) setImmediate(() => exposedGc?.());
  let closing: Promise<void> | undefined;
  return {
    db: db as unknown as Database,
    // One connection in the process: nothing to keep apart, and no network to go silent.
    worldDb: db as unknown as Database,
    kind: "pglite",
    abandonWorldQueries: () => 0,
    ping: async () => {
      if (closing || client.closed) throw new Error("embedded database is closed");
      await db.execute(sql`select 1`);
    },
    close: () => {
      closing ??= (async () => {
        end();
        if (reuse) await giveBack(client);
        else if (!client.closed) await client.close();
        unlock();
      })();
      return closing;
    },
  };
}

async function newPglite(dataDir: string | undefined): Promise<PGlite> {
  const loadDataDir = dataDir === undefined && template ? await template : undefined;
  return new PGlite({
    dataDir,
    loadDataDir,
    startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS],
  });
}
