// Migrating at start, as an operator upgrading a deployment meets it: processes that start together on
// one PostgreSQL database, and a database a newer version of the server has migrated further.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { MIGRATIONS_DIR } from "../../src/config/paths.js";
import { StartupError } from "../../src/config/startup-error.js";
import { type DatabaseHandle, openDatabase } from "../../src/db/database.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";

/** Records, as a newer version's migrator would, a migration a day after this version's newest. */
async function recordNewerMigration(handle: DatabaseHandle): Promise<void> {
  const newest = Math.max(
    ...readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR }).map((m) => m.folderMillis),
  );
  await handle.db.execute(
    sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('of a newer version', ${newest + 86_400_000})`,
  );
}

const NEWER_VERSION = /migrated by a newer version of the server/;

describe("migrating the database at start", function () {
  this.timeout(60000);

  describe("the embedded database in a folder", () => {
    let dataDir: string;
    before(() => {
      dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), "tileworld-migrations-")), "db");
    });
    after(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));

    it("refuses to open a folder a newer version of the server migrated, saying why", async () => {
      const first = await openDatabase({ dataDir });
      await recordNewerMigration(first);
      await first.close();
      await assert.rejects(openDatabase({ dataDir }), (error: unknown) => {
        assert.ok(error instanceof StartupError, String(error));
        assert.match(error.message, NEWER_VERSION);
        return true;
      });
    });
  });

  (postgresUrl ? describe : describe.skip)("PostgreSQL", () => {
    const fresh: { drop(): Promise<void> }[] = [];
    after(() => Promise.all(fresh.map((database) => database.drop())));

    it("lets processes that start together migrate in turn, each coming up", async () => {
      const database = await freshDatabaseUrl(postgresUrl!);
      fresh.push(database);
      const opened = await Promise.allSettled([1, 2, 3].map(() => openDatabase({ url: database.url })));
      const failed = opened.flatMap((outcome) =>
        outcome.status === "rejected" ? [String(outcome.reason)] : [],
      );
      await Promise.all(opened.map((outcome) => outcome.status === "fulfilled" && outcome.value.close()));
      assert.deepEqual(failed, []);
    });

    it("refuses a database a newer version of the server migrated, saying why", async () => {
      const database = await freshDatabaseUrl(postgresUrl!);
      fresh.push(database);
      const first = await openDatabase({ url: database.url });
      await recordNewerMigration(first);
      await first.close();
      await assert.rejects(openDatabase({ url: database.url }), NEWER_VERSION);
    });
  });
});
