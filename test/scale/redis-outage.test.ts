import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@colyseus/sdk";
import { LISTINGS_UNREACHABLE_MESSAGE } from "../../src/protocol/listings-unreachable.js";
import { REDIS_COMMAND_TIMEOUT_MS } from "../../src/server/scale-out.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { leave, sleep } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, startServerProcess } from "../support/processes.js";
import { accepting, hasRedisServer, startRedis, stopRedis } from "../support/redis-server.js";
import { refusedUpgrade, WsClient } from "../support/ws-client.js";

const { server: PORT, redis: REDIS_PORT } = PROCESS_PORTS.redisOutage;
/** Long enough for two rounds of lookups that each wait REDIS_COMMAND_TIMEOUT_MS (10 s) before failing. */
const OUTAGE_MS = 26_000;
/** How soon after Redis is back a new player must be in. */
const BACK_WITHIN_MS = 10_000;
const UNAVAILABLE = { error: { code: "unavailable", message: LISTINGS_UNREACHABLE_MESSAGE } };

(hasRedisServer ? describe : describe.skip)("a server whose Redis is away for a while", function () {
  this.timeout(90_000);
  let redis: ChildProcess;
  let server: ServerProcess | undefined;
  let dataDir: string;
  let database: { url: string; drop(): Promise<void> } | undefined;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-redis-outage-"));
    // PostgreSQL when there is one: the embedded database takes long to start on a busy machine.
    database = postgresUrl ? await freshDatabaseUrl(postgresUrl) : undefined;
    redis = startRedis(REDIS_PORT);
    await accepting(REDIS_PORT);
    server = await startServerProcess(PORT, {
      DATA_DIR: dataDir,
      ...(database ? { DATABASE_URL: database.url } : { PGLITE_STORAGE: "memory" }),
      REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`,
      PUBLIC_ADDRESS: `127.0.0.1:${PORT}`,
      WORLD_TICK_MS: "100",
      ...(process.env.FORGET_FAILED_ROOM_LOOKUPS && {
        FORGET_FAILED_ROOM_LOOKUPS: process.env.FORGET_FAILED_ROOM_LOOKUPS,
      }),
    });
  });
  after(async () => {
    server?.child.kill("SIGKILL");
    await server?.exited;
    if (redis) await stopRedis(redis);
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const signIn = async () => {
    const response = await fetch(`${server!.baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
    assert.equal(response.status, 201);
    return ((await response.json()) as { token: string }).token;
  };
  const readPlayer = (token: string) =>
    fetch(`${server!.baseUrl}/api/v1/player`, { headers: { Authorization: `Bearer ${token}` } });
  const sdkJoin = (token: string) => {
    const sdk = new Client(server!.baseUrl);
    sdk.auth.token = token;
    return sdk.joinOrCreate("world");
  };
  const wsJoin = async (token: string) => {
    const client = await WsClient.connect(`ws://127.0.0.1:${PORT}/ws`, { header: token });
    await client.next("player:sync", () => true, BACK_WITHIN_MS);
    return client;
  };

  it("tells those who come during it 503 unavailable, and lets new players in within 10 s of its return", async () => {
    const reader = await signIn();
    assert.equal((await readPlayer(reader)).status, 200);
    const [sdkDuring, wsDuring, sdkAfter, wsAfter] = await Promise.all([
      signIn(),
      signIn(),
      signIn(),
      signIn(),
    ]);

    await stopRedis(redis);
    const outageBegan = Date.now();
    // Each of these looks the world up while Redis is away, and is told so once the server gives up.
    const [read, sdkRefusal, wsRefusal] = await Promise.all([
      readPlayer(reader),
      sdkJoin(sdkDuring).then(
        () => assert.fail("an SDK join succeeded without Redis"),
        (error: { code?: number; message?: string }) => error,
      ),
      refusedUpgrade(`ws://127.0.0.1:${PORT}/ws`, { header: wsDuring }),
    ]);
    assert.equal(read.status, 503);
    assert.deepEqual(await read.json(), UNAVAILABLE);
    assert.deepEqual(
      { code: sdkRefusal.code, message: sdkRefusal.message },
      {
        code: 503,
        message: LISTINGS_UNREACHABLE_MESSAGE,
      },
    );
    assert.deepEqual(
      { status: wsRefusal.status, body: JSON.parse(wsRefusal.body) },
      { status: 503, body: UNAVAILABLE },
    );
    // Readiness says so, for a load balancer to send players elsewhere.
    const health = await fetch(`${server!.baseUrl}/health`);
    assert.equal(health.status, 503);
    assert.deepEqual((({ status, redis }) => ({ status, redis }))(await health.json()), {
      status: "degraded",
      redis: "unavailable",
    });
    // Later in the outage a lookup waits no longer than the first did: the Redis client's reconnection
    // attempts, spaced ever wider, do not set how long it waits.
    const asked = Date.now();
    const later = await readPlayer(reader);
    assert.equal(later.status, 503);
    const waited = Date.now() - asked;
    assert.ok(
      waited < REDIS_COMMAND_TIMEOUT_MS + 1500,
      `refused ${waited} ms after asking, ${asked - outageBegan} ms into the outage`,
    );

    await sleep(OUTAGE_MS - (Date.now() - outageBegan));
    redis = startRedis(REDIS_PORT);
    const back = Date.now();
    const [room, ws] = await Promise.all([sdkJoin(sdkAfter), wsJoin(wsAfter)]).catch((error: Error) =>
      assert.fail(`a new player could not join once Redis was back: ${error.message}`),
    );
    const took = Date.now() - back;
    assert.ok(took < BACK_WITHIN_MS, `new players joined ${took} ms after Redis was back`);
    const again = await readPlayer(reader);
    assert.equal(again.status, 200);
    const healthy = await fetch(`${server!.baseUrl}/health`);
    assert.equal(healthy.status, 200);
    assert.equal((await healthy.json()).redis, "ok");
    await leave(room);
    await ws.close();
  });

  it("stops within 10 s on SIGTERM while Redis is away", async () => {
    const token = await signIn();
    await stopRedis(redis);
    // A lookup in flight, as a player's would be.
    const reading = readPlayer(token).catch(() => undefined);
    await sleep(500);
    const began = Date.now();
    const code = await server!.stop();
    const took = Date.now() - began;
    assert.ok(took < 10_000, `SIGTERM took ${took} ms:\n${server!.output().slice(-3000)}`);
    assert.equal(code, 0, server!.output().slice(-2000));
    await reading;
  });
});
