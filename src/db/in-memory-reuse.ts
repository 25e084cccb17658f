// For a process that opens many in-memory embedded databases (the test suite, see
// startInMemoryDatabasesFromTemplate): starting one costs PGlite's initdb the first time and loading a
// copy of its files every time after, seconds of CPU each. Two shortcuts, both off in a server:
// the migrated files are kept on disk for the next process, and a database closed is emptied and
// handed to the next open instead of being thrown away.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { MIGRATIONS_DIR } from "../config/paths.js";
import { within } from "../limits/time-limit.js";

/**
 * Where the migrated files are kept, named after what makes them: PGlite's version, its settings and
 * the migrations. Another checkout with other migrations keeps its own.
 */
function templateFile(settings: readonly string[]): string {
  const hash = createHash("sha256");
  const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  hash.update(readFileSync(path.join(path.dirname(pglite), "..", "package.json")));
  hash.update(settings.join(" "));
  for (const file of readdirSync(MIGRATIONS_DIR, { recursive: true }).map(String).sort()) {
    if (!file.endsWith(".sql") && !file.endsWith(".json")) continue;
    hash.update(file);
    hash.update(readFileSync(path.join(MIGRATIONS_DIR, file)));
  }
  return path.join(os.tmpdir(), `tileworld-pglite-template-${hash.digest("hex").slice(0, 16)}.tar`);
}

/** The files an earlier process kept, if any. */
export function keptTemplate(settings: readonly string[]): Blob | undefined {
  try {
    return new Blob([readFileSync(templateFile(settings))]);
  } catch {
    return undefined;
  }
}

/** Keeps the files for the next process: written aside, then renamed, so no process reads half of them. */
export async function keepTemplate(settings: readonly string[], files: Blob): Promise<void> {
  const file = templateFile(settings);
  const partial = `${file}.${process.pid}`;
  try {
    writeFileSync(partial, Buffer.from(await files.arrayBuffer()));
    renameSync(partial, file);
  } catch {
    // A full or read-only temporary folder: the next process makes its own.
  }
}

/** Closed databases, emptied, waiting for the next open: one, since each holds some 100 MB. */
const idle: PGlite[] = [];
const MAX_IDLE = 1;
/** Emptying a database takes milliseconds; one still busy after this has a query that hangs. */
const EMPTYING_MS = 3000;

/** An idle database, if any. */
export function takeIdleDatabase(): PGlite | undefined {
  return idle.pop();
}

/**
 * The client one handle's queries go through: it refuses every query once the handle is closed, so a
 * late query of a stopped server never lands in the database the next open is given.
 */
export function leasedClient(client: PGlite): { lease: PGlite; end(): void } {
  let ended = false;
  const refuse = () => {
    if (ended) throw new Error("embedded database is closed");
  };
  const lease = {
    query: (...args: Parameters<PGlite["query"]>) => {
      refuse();
      return client.query(...args);
    },
    exec: (...args: Parameters<PGlite["exec"]>) => {
      refuse();
      return client.exec(...args);
    },
    transaction: (...args: Parameters<PGlite["transaction"]>) => {
      refuse();
      return client.transaction(...args);
    },
  } as unknown as PGlite;
  return { lease, end: () => (ended = true) };
}

/**
 * Empties the database (every table of the application's schema, sequences restarted) and keeps it for
 * the next open; one that does not empty in time, or is not needed, is closed.
 */
export async function giveBack(client: PGlite): Promise<void> {
  const emptied = async () => {
    await client.exec("rollback");
    const { rows } = await client.query<{ name: string }>(
      "select quote_ident(tablename) as name from pg_tables where schemaname = 'public'",
    );
    if (rows.length)
      await client.exec(`truncate table ${rows.map((row) => row.name).join(", ")} restart identity cascade`);
    await client.exec("reset all");
    return true;
  };
  const ready =
    idle.length < MAX_IDLE &&
    (await within(
      emptied().catch(() => false),
      EMPTYING_MS,
      false,
    ));
  if (ready) idle.push(client);
  else void client.close().catch(() => {});
}
