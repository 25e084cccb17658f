// A server process's claim on a PostgreSQL database (src/db/server-claim.ts) outlives its connection:
// dropped (the database restarted), it is taken again, so a second process alone is still refused.
import assert from "node:assert/strict";
import pg from "pg";
import { StartupError } from "../../src/config/startup-error.js";
import { CLAIM_APPLICATION_NAME, type ClaimNews, claimDatabase } from "../../src/db/server-claim.js";
import { freshDatabaseUrl } from "../support/databases.js";
import { waitForAsync } from "../support/players.js";

const postgresUrl = process.env.TEST_DATABASE_URL;

describe("a server process's claim on its PostgreSQL database", function () {
  this.timeout(30000);
  let database: { url: string; drop(): Promise<void> };
  const releases: (() => Promise<void>)[] = [];

  before(async function () {
    if (!postgresUrl) this.skip();
    database = await freshDatabaseUrl(postgresUrl);
  });
  afterEach(async () => {
    await Promise.all(releases.splice(0).map((release) => release()));
  });
  after(() => database?.drop());

  /** Ends the claim's connection from the database's side, as a restart of the database would. */
  const dropClaimConnection = async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()",
        [CLAIM_APPLICATION_NAME],
      );
      assert.equal(rowCount, 1, "the claim's one connection");
    } finally {
      await admin.end();
    }
  };
  const refused = (promise: Promise<unknown>) =>
    assert.rejects(
      promise,
      (error) => error instanceof StartupError && /Another server process/.test(error.message),
    );

  it("is taken again when its connection drops, and still refuses a second process alone", async () => {
    const news: ClaimNews[] = [];
    releases.push(await claimDatabase(database.url, "alone", (told) => news.push(told)));
    await refused(claimDatabase(database.url, "alone"));

    await dropClaimConnection();
    await waitForAsync(async () => news.includes("retaken"), "the claim taken again", 10000);
    assert.deepEqual(news, ["lost", "retaken"]);
    await refused(claimDatabase(database.url, "alone"));
  });

  it("says when another process took the database while it was lost, and takes it once that one lets go", async () => {
    const news: ClaimNews[] = [];
    releases.push(await claimDatabase(database.url, "shared", (told) => news.push(told)));
    // Two processes scaling out share it.
    const other = await claimDatabase(database.url, "shared");
    await other();

    await dropClaimConnection();
    await waitForAsync(async () => news.includes("lost"), "the claim lost");
    // A process alone starts in the gap.
    const intruder = await claimDatabase(database.url, "alone");
    await waitForAsync(
      async () => news.includes("held_elsewhere"),
      "told that another process holds it",
      10000,
    );
    await intruder();
    await waitForAsync(async () => news.includes("retaken"), "the claim taken again", 10000);
    assert.deepEqual(news, ["lost", "held_elsewhere", "retaken"]);
  });
});
