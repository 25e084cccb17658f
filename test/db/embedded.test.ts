import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { type DatabaseHandle, openDatabase } from "../../src/db/database.js";

describe("the embedded database (PGlite)", () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await openDatabase({});
  });
  after(() => handle.close());

  const walInitZero = async () => {
    const result = (await handle.db.execute(sql`show wal_init_zero`)) as unknown as {
      rows: { wal_init_zero: string }[];
    };
    return result.rows[0]?.wal_init_zero;
  };

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
});
