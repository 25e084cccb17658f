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
});
