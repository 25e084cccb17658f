// Applying the schema's migrations at start: one process at a time on a shared PostgreSQL database, and
// never onto a database a newer version of the server has migrated further than this one knows.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { MIGRATIONS_DIR } from "../config/paths.js";
import { StartupError } from "../config/startup-error.js";
import type { Database } from "./database.js";

/** The advisory lock the processes sharing a PostgreSQL database take in turn to migrate it ("tileworld"). */
const MIGRATION_LOCK = 0x74696c65;

/** Where drizzle records the migrations it applied (its defaults). */
const APPLIED = "drizzle.__drizzle_migrations";

/**
 * Migrates a PostgreSQL database with its migration lock held: processes starting together (a rolling
 * deploy, pm2's cluster) take turns, each finding the work of the one before done. The lock is held on a
 * connection of its own, outside the pool and its query time limits: waiting for it may take as long as
 * another process's migration.
 */
export async function migrateInTurn(
  url: string,
  connectTimeoutMs: number,
  migrate: () => Promise<void>,
): Promise<void> {
  const lockHolder = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  lockHolder.on("error", () => {});
  await lockHolder.connect();
  try {
    await lockHolder.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await migrate();
  } finally {
    // Ending the session lets go of the lock, whatever happened.
    await lockHolder.end().catch(() => {});
  }
}

/**
 * Refuses a database on which a migration this version does not have was applied: a newer server migrated
 * it, and this one would read and write it with the tables as they were.
 */
export async function refuseNewerSchema(db: Database): Promise<void> {
  const table = await rowsOf(db.execute(sql`select to_regclass(${APPLIED}) as found`));
  if (!table[0]?.found) return;
  const [latest] = await rowsOf(
    db.execute(sql.raw(`select created_at from ${APPLIED} order by created_at desc limit 1`)),
  );
  if (!latest) return;
  const appliedAt = Number(latest.created_at);
  const newest = newestMigrationMillis();
  if (appliedAt > newest)
    throw new StartupError(
      `The database was migrated by a newer version of the server: it holds a migration of ` +
        `${new Date(appliedAt).toISOString()}, and this version's newest is of ${new Date(newest).toISOString()}. ` +
        "Run that version (or a later one), or point this one at a database it made.",
    );
}

/**
 * When this version's newest migration was made, from drizzle-kit's journal of the migrations folder: the
 * time drizzle's migrator records as a migration's created_at. The migrator reads the files themselves.
 */
function newestMigrationMillis(): number {
  const journalPath = path.join(MIGRATIONS_DIR, "meta", "_journal.json");
  // drizzle's own words for a folder without its journal, which its migrator would say next.
  if (!existsSync(journalPath)) throw new Error("Can't find meta/_journal.json file");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { when: number }[] };
  return Math.max(...journal.entries.map((entry) => entry.when));
}

async function rowsOf(result: Promise<unknown>): Promise<Record<string, unknown>[]> {
  return ((await result) as { rows: Record<string, unknown>[] }).rows;
}
