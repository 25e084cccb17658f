import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import pino from "pino";
import { loadConfig } from "../src/config/config.js";
import { openDatabase } from "../src/db/database.js";
import { createRuntime } from "../src/server/runtime.js";
import { waitForAsync } from "./support/players.js";

/** The warnings a runtime logs as it opens with `env`. */
async function startUpWarnings(env: Record<string, string>): Promise<string[]> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-runtime-"));
  try {
    const config = loadConfig({ NODE_ENV: "test", PGLITE_STORAGE: "memory", DATA_DIR: dataDir, ...env });
    const runtime = await createRuntime(config, pino({ level: "warn" }, sink));
    await runtime.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return lines.map((line) => JSON.parse(line).msg as string);
}

describe("start-up", () => {
  it("warns that a provider's app id without its key leaves the server in anonymous mode", async () => {
    const warnings = await startUpWarnings({ PUBLIC_IDP_APP_ID: "app-1" });
    assert.ok(
      warnings.some((warning) =>
        /PUBLIC_IDP_APP_ID.*IDP_JWKS_URL or IDP_VERIFICATION_KEY.*anonymous/.test(warning),
      ),
      warnings.join("\n"),
    );
  });

  it("says nothing of it when the provider has its key, or is not configured at all", async () => {
    const configurations: Record<string, string>[] = [
      { PUBLIC_IDP_APP_ID: "app-1", IDP_JWKS_URL: "https://idp.test/jwks", IDP_ISSUER: "https://idp.test" },
      {},
    ];
    for (const env of configurations) {
      const warnings = await startUpWarnings(env);
      assert.ok(!warnings.some((warning) => warning.includes("PUBLIC_IDP_APP_ID")), warnings.join("\n"));
    }
  });
});

describe("the anonymous accounts' sweep", () => {
  it("deletes, once the server runs, the anonymous accounts unseen for ANONYMOUS_ACCOUNT_RETENTION_SECONDS", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-sweep-"));
    try {
      const pglite = path.join(dataDir, "pglite");
      const before = await openDatabase({ dataDir: pglite });
      await before.db.execute(sql`
        insert into accounts (id, subject, kind, last_seen_at) values
          ('stale', 'anon:stale', 'anonymous', now() - interval '3 hours'),
          ('fresh', 'anon:fresh', 'anonymous', now() - interval '1 hour')`);
      await before.close();
      const config = loadConfig({
        NODE_ENV: "test",
        PGLITE_STORAGE: "disk",
        DATA_DIR: dataDir,
        ANONYMOUS_ACCOUNT_RETENTION_SECONDS: "7200",
      });
      const runtime = await createRuntime(config, pino({ level: "silent" }));
      try {
        await waitForAsync(async () => !(await runtime.accounts.get("stale")), "the stale account deleted");
        assert.ok(await runtime.accounts.get("fresh"), "the account seen an hour ago is kept");
      } finally {
        await runtime.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
