import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { waitForAsync } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, startServerProcess } from "../support/processes.js";
import { WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
const [FIRST_PORT, SECOND_PORT] = PROCESS_PORTS.developmentDefaults;
/** A Redis database of its own, emptied first (two-processes.test.ts uses 7). */
const REDIS_DB = 8;

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

scaleOut("development processes on one Redis without PUBLIC_ADDRESS or JWT_SECRET", function () {
  this.timeout(240000);
  let servers: ServerProcess[] = [];
  let database: { url: string; drop(): Promise<void> };
  let redis: Redis;
  const redisUrl = `${redisBase}/${REDIS_DB}`;

  before(async () => {
    redis = new Redis(redisUrl);
    await redis.flushdb();
    database = await freshDatabaseUrl(postgresUrl!);
    // Neither JWT_SECRET nor PUBLIC_ADDRESS: what a developer trying two processes would start.
    const env = (port: number) => ({
      NODE_ENV: "development",
      REDIS_URL: redisUrl,
      DATABASE_URL: database.url,
      WORLD_TICK_MS: "100",
      DATA_DIR: `/tmp/tileworld-dev-defaults-${port}`,
      RATE_LIMIT_REST_PER_MIN: "10000",
    });
    // One at a time: both would apply the migrations otherwise. Generous: a busy machine starts slowly.
    servers.push(await startServerProcess(FIRST_PORT, env(FIRST_PORT), 90000));
    servers.push(await startServerProcess(SECOND_PORT, env(SECOND_PORT), 90000));
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    servers = [];
    await redis?.flushdb();
    redis?.disconnect();
    await database?.drop();
  });

  it("log the address each chose, and share one development secret through the database", async () => {
    for (const server of servers) {
      assert.match(server.output(), new RegExp(`PUBLIC_ADDRESS is not set[^"]*:${server.port}`));
      assert.match(server.output(), /JWT_SECRET is not set: (generated a|using the) development secret/);
    }
    // A token one process signed opens the other's API.
    const signedIn = await fetch(`${servers[0]!.baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
    const { token } = await signedIn.json();
    const player = await fetch(`${servers[1]!.baseUrl}/api/v1/player`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(player.status, 200);
  });

  it("relay a /ws client that reaches the process without the world to the world's", async () => {
    let listing: { publicAddress?: string } | undefined;
    await waitForAsync(async () => {
      const rooms = Object.values(await redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
      listing = rooms.find((room) => room.name === "world");
      return listing;
    }, "the world listed");
    const home = servers.find((server) => listing?.publicAddress?.endsWith(`:${server.port}`));
    assert.ok(home, `the world is listed at a process's address: ${listing?.publicAddress}`);
    const away = servers.find((server) => server !== home)!;
    const signedIn = await fetch(`${away.baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
    const { token } = await signedIn.json();
    const client = await WsClient.connect(`ws://127.0.0.1:${away.port}/ws`, { header: token });
    try {
      assert.equal((await client.first()).event, "player:sync");
    } finally {
      await client.close();
    }
  });
});
