// Two server processes on one PostgreSQL database without Redis: the second would open the worlds too,
// and each opening closes the other's (the lease), throwing the players out. It is refused at start-up.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabaseUrl } from "../support/databases.js";
import { PROCESS_PORTS, type ServerProcess, startServerProcess } from "../support/processes.js";
import { WsClient } from "../support/ws-client.js";

const postgresUrl = process.env.TEST_DATABASE_URL;
const PORTS = PROCESS_PORTS.databaseClaim;

describe("a second process on the same DATABASE_URL without REDIS_URL", function () {
  this.timeout(90000);
  let database: { url: string; drop(): Promise<void> };
  let dataDir: string;
  const started: ServerProcess[] = [];

  before(async function () {
    if (!postgresUrl) this.skip();
    database = await freshDatabaseUrl(postgresUrl);
    dataDir = await mkdtemp(join(tmpdir(), "database-claim-"));
  });
  after(async () => {
    await Promise.all(started.map((server) => server.stop("SIGKILL")));
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("does not take the running world from under its players: the second is refused at start-up, naming REDIS_URL", async () => {
    const env = (port: number) => ({
      DATABASE_URL: database.url,
      JWT_SECRET: "database-claim-secret-of-at-least-32-bytes",
      WORLD_TICK_MS: "100",
      SKIP_MANIFESTS: "true",
      DATA_DIR: `${dataDir}/${port}`,
    });
    const first = await startServerProcess(PORTS[0]!, env(PORTS[0]!));
    started.push(first);
    const token = (await (await fetch(`${first.baseUrl}/api/v1/auth/anonymous`, { method: "POST" })).json())
      .token as string;
    const player = await WsClient.connect(`ws://127.0.0.1:${PORTS[0]}/ws`, { query: token });
    await player.received((frame) => frame.event === "player:sync");

    // The operator's mistake: a second process on the same database (pm2's second instance, a second
    // `npm start`).
    let second: ServerProcess | undefined;
    let refusal: string | undefined;
    try {
      second = await startServerProcess(PORTS[1]!, env(PORTS[1]!), 30000);
      started.push(second);
    } catch (error) {
      refusal = (error as Error).message;
    }
    // The first world's players play on: a step makes the first world write (its lease is checked every 5 s anyway).
    const sync = (await player.received((frame) => frame.event === "player:sync")).data;
    player.send("player:move", { x: sync.position.x + 1, z: sync.position.z });
    const closed = await Promise.race([
      player.closed,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 7000)),
    ]);
    assert.equal(
      closed,
      undefined,
      `the running world's player was thrown out (close ${JSON.stringify(closed)}) when a second process ` +
        `started on the same DATABASE_URL without REDIS_URL:\n${first
          .output()
          .split("\n")
          .filter((line) => /another world opened|opened in this process|closed in this process/.test(line))
          .join("\n")}`,
    );
    assert.match(
      refusal ?? "it started",
      /Another server process uses the database at DATABASE_URL.*REDIS_URL/,
    );
    player.socket.close(1000);
  });
});
