import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import pg from "pg";
import { type DatabaseHandle, openDatabase } from "../../src/db/database.js";
import { startTcpProxy, type TcpProxy } from "./tcp.js";

export interface TestBackend {
  name: "pglite" | "postgres";
  /** A fresh, migrated, empty database. */
  open(): Promise<DatabaseHandle>;
}

/** The local PostgreSQL that CI provides; its suites are skipped when unset. */
export const postgresUrl = process.env.TEST_DATABASE_URL;

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const backends: TestBackend[] = [
  { name: "pglite", open: () => openDatabase({}) },
  ...(postgresUrl ? [{ name: "postgres" as const, open: () => openFreshPostgres(postgresUrl) }] : []),
];

async function adminQuery(baseUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** A new, empty database beside the one at baseUrl, and a way to drop it. */
export async function freshDatabaseUrl(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `test_${randomUUID().replaceAll("-", "")}`;
  await adminQuery(baseUrl, `create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(baseUrl, `drop database if exists ${name} with (force)`),
  };
}

/** A migrated fresh PostgreSQL database that is dropped again on close. */
export async function openFreshPostgres(baseUrl: string, poolSize?: number): Promise<DatabaseHandle> {
  const fresh = await freshDatabaseUrl(baseUrl);
  const handle = await openDatabase({ url: fresh.url, poolSize });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await fresh.drop();
    },
  };
}

/** Empties every table, so one migrated database can serve a whole suite. */
export async function truncateAll(handle: DatabaseHandle): Promise<void> {
  await handle.db.execute(
    sql`truncate table world_lease, ground_items, trades, agents, equipment, bank, inventory, skills, characters, accounts restart identity cascade`,
  );
}

/** A fresh database reached through a TCP proxy the test can black-hole, cut or refuse (see startTcpProxy). */
export async function freshDatabaseBehindProxy(
  baseUrl: string,
): Promise<{ url: string; proxy: TcpProxy; drop(): Promise<void> }> {
  const fresh = await freshDatabaseUrl(baseUrl);
  const url = new URL(fresh.url);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.host = `127.0.0.1:${proxy.port}`;
  return { url: url.toString(), proxy, drop: fresh.drop };
}
