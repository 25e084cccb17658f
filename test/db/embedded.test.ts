import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { type DatabaseHandle, openDatabase } from "../../src/db/database.js";

describe("the embedded database (PGlite)", () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await openDatabase({});
  });
  after(() => handle.close());

  const setting = async (name: "wal_init_zero" | "shared_buffers") => {
    const result = (await handle.db.execute(sql.raw(`show ${name}`))) as unknown as {
      rows: Record<string, string>[];
    };
    return result.rows[0]?.[name];
  };
  const walInitZero = () => setting("wal_init_zero");

  // Zero-filling a new 16 MB segment stalls the server's thread (see EMBEDDED_SETTINGS).
  it("does not zero-fill new WAL segments, for its whole life", async () => {
    assert.equal(await walInitZero(), "off");
    await assert.rejects(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`set local wal_init_zero = on`);
        throw new Error("rolled back");
      }),
    );
    assert.equal(await walInitZero(), "off");
  });

  it("keeps a 32 MB buffer cache, a quarter of PostgreSQL's default (see EMBEDDED_SETTINGS)", async () => {
    assert.equal(await setting("shared_buffers"), "32MB");
  });

  // The suite starts its in-memory databases from a migrated template (test/setup.ts).
  it("starts each in-memory database empty and migrated, whatever the ones before it hold", async function () {
    // Two databases loaded from the template at once: seconds of CPU each on a loaded machine.
    this.timeout(60000);
    const characters = async (db: DatabaseHandle) =>
      ((await db.db.execute(sql`select name from characters`)) as unknown as { rows: { name: string }[] })
        .rows;
    const first = await openDatabase({});
    const second = await openDatabase({});
    try {
      await first.db.execute(
        sql`insert into characters (id, name, x, z, health) values ('c1', 'Template', 1, 1, 10)`,
      );
      const third = await openDatabase({});
      try {
        assert.deepEqual(await characters(second), []);
        assert.deepEqual(await characters(third), []);
        await third.db.execute(
          sql`insert into characters (id, name, x, z, health) values ('c1', 'Fresh', 1, 1, 10)`,
        );
        assert.deepEqual(await characters(third), [{ name: "Fresh" }]);
      } finally {
        await third.close();
      }
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

describe("in-memory databases the suite gives back on close", () => {
  it("starts the next one empty, and refuses the closed one's late queries", async () => {
    const first = await openDatabase({});
    await first.db.execute(
      sql`insert into characters (id, name, x, z, health) values ('c1', 'Before', 1, 1, 10)`,
    );
    await first.close();
    const next = await openDatabase({});
    try {
      await assert.rejects(first.db.execute(sql`select 1`), (error: Error) =>
        /embedded database is closed/.test(String((error.cause as Error | undefined)?.message)),
      );
      await assert.rejects(first.ping(), /embedded database is closed/);
      const { rows } = (await next.db.execute(sql`select name from characters`)) as unknown as {
        rows: unknown[];
      };
      assert.deepEqual(rows, []);
      await next.db.execute(
        sql`insert into characters (id, name, x, z, health) values ('c1', 'After', 1, 1, 10)`,
      );
    } finally {
      await next.close();
    }
  });
});
