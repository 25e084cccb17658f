// A character plays in one world at a time: a login in world 2 has world 1 let it go first. When world 1
// cannot answer (its process stalled, or cut off from Redis, and so unlisted), the login goes on, and that
// opening of world 1, which may run on under its lease, is fenced: its lease is revoked first, so nothing
// it still writes of the character commits. Both cases stored one item twice before.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { sleep, waitForAsync } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, scaleOutEnv, startServerProcess } from "../support/processes.js";
import { accepting, hasRedisServer, startRedis, stopRedis } from "../support/redis-server.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp.js";
import { WsClient } from "../support/ws-client.js";

const [WORLD_1_PORT, WORLD_2_PORT] = PROCESS_PORTS.worldRelease.servers;
const REDIS_PORT = PROCESS_PORTS.worldRelease.redis;
const scaleOut = postgresUrl && hasRedisServer ? describe : describe.skip;

/** Where the character's axes are stored: in its inventory, or on a world's ground. */
async function storedAxes(databaseUrl: string, characterId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const held = await client.query(
      "select 'inventory' as place from inventory where character_id = $1 and item_id = 'bronze_axe'",
      [characterId],
    );
    const ground = await client.query(
      "select 'ground of world ' || world as place from ground_items where item_id = 'bronze_axe'",
    );
    return [...held.rows, ...ground.rows].map((row) => row.place as string);
  } finally {
    await client.end();
  }
}

/** A player of world 1 on `port`, with its character's id and the slot of its bronze axe. */
async function playerInWorld1(port: number, token: string) {
  const client = await WsClient.connect(`ws://127.0.0.1:${port}/ws?world=1`, { header: token });
  const greeting = await client.first();
  assert.equal(greeting.event, "player:sync");
  const axe = greeting.data.inventory.find((entry: any) => entry.itemId === "bronze_axe");
  assert.ok(axe, "a new character carries a bronze axe");
  return { client, characterId: greeting.data.id as string, axeSlot: axe.slot as number };
}

scaleOut("a login in another world while the character's world stalls (SIGSTOP)", function () {
  this.timeout(120000);
  const secret = randomBytes(32).toString("hex");
  let redis: ChildProcess;
  let database: { url: string; drop(): Promise<void> };
  let world1: ServerProcess | undefined;
  let world2: ServerProcess | undefined;
  const clients: WsClient[] = [];

  before(async () => {
    redis = startRedis(REDIS_PORT);
    await accepting(REDIS_PORT);
    database = await freshDatabaseUrl(postgresUrl!);
    const shared = {
      redisUrl: `redis://127.0.0.1:${REDIS_PORT}`,
      databaseUrl: database.url,
      secret,
      dataDir: "/tmp/tileworld-world-release-stall",
    };
    const env = (port: number) => ({ ...scaleOutEnv(port, shared), WORLDS: "2" });
    world1 = await startServerProcess(WORLD_1_PORT, env(WORLD_1_PORT));
    world2 = await startServerProcess(WORLD_2_PORT, env(WORLD_2_PORT));
  });
  after(async () => {
    if (world1?.child.exitCode === null) world1.child.kill("SIGCONT");
    for (const client of clients) client.socket.terminate();
    await Promise.all([world1, world2].map((server) => server?.stop("SIGKILL")));
    await stopRedis(redis);
    await database?.drop();
  });

  it("keeps an item dropped in world 2 out of the inventory once world 1's process resumes", async () => {
    const { token } = await issueAnonymousToken(new TextEncoder().encode(secret));
    const { client: inWorld1, characterId, axeSlot } = await playerInWorld1(WORLD_1_PORT, token);
    clients.push(inWorld1);

    // World 1's process stands still (a paused VM, a long stall); the player logs in to world 2, where
    // world 1 does not answer and is found gone.
    world1!.child.kill("SIGSTOP");
    const inWorld2 = await WsClient.connect(`ws://127.0.0.1:${WORLD_2_PORT}/ws?world=2`, { header: token });
    clients.push(inWorld2);
    const arrived = await inWorld2.received(() => true, 30000);
    assert.equal(arrived.event, "player:sync", JSON.stringify(arrived.data));
    inWorld2.send("player:action", { action: "drop", inventorySlot: axeSlot }, "drop");
    await inWorld2.received((frame) => frame.id === "drop" && frame.event === "player:sync");
    await waitForAsync(
      async () => (await storedAxes(database.url, characterId)).join() === "ground of world 2",
      "the drop stored",
    );

    // The old connection closes (a logout) and world 1's process resumes: its departure must not commit.
    inWorld1.socket.close(1000);
    world1!.child.kill("SIGCONT");
    await sleep(3000);
    assert.deepEqual(await storedAxes(database.url, characterId), ["ground of world 2"]);
  });
});

scaleOut("a login in another world while the character's world is cut off from Redis", function () {
  this.timeout(120000);
  const secret = randomBytes(32).toString("hex");
  let redisServer: ChildProcess;
  let redis: Redis;
  let partition: TcpProxy;
  let database: { url: string; drop(): Promise<void> };
  let cutOff: ServerProcess | undefined;
  let other: ServerProcess | undefined;
  const clients: WsClient[] = [];

  before(async () => {
    redisServer = startRedis(REDIS_PORT);
    await accepting(REDIS_PORT);
    redis = new Redis(`redis://127.0.0.1:${REDIS_PORT}`);
    database = await freshDatabaseUrl(postgresUrl!);
    partition = await startTcpProxy({ host: "127.0.0.1", port: REDIS_PORT });
    const env = (port: number, redisUrl: string) => ({
      ...scaleOutEnv(port, {
        redisUrl,
        databaseUrl: database.url,
        secret,
        dataDir: "/tmp/tileworld-world-release-cut",
      }),
      WORLDS: "2",
    });
    cutOff = await startServerProcess(WORLD_1_PORT, env(WORLD_1_PORT, `redis://127.0.0.1:${partition.port}`));
    other = await startServerProcess(WORLD_2_PORT, env(WORLD_2_PORT, `redis://127.0.0.1:${REDIS_PORT}`));
  });
  after(async () => {
    for (const client of clients) client.socket.terminate();
    await Promise.all([cutOff, other].map((server) => server?.stop("SIGKILL")));
    await partition?.close();
    redis?.disconnect();
    await stopRedis(redisServer);
    await database?.drop();
  });

  const worldOneListed = async () =>
    Object.values(await redis.hgetall("roomcaches"))
      .map((json) => JSON.parse(json))
      .some((listing) => listing.name === "world" && listing.metadata?.world === 1);

  it("never lets one axe be dropped in two worlds", async () => {
    const { token } = await issueAnonymousToken(new TextEncoder().encode(secret));
    const { client: inWorld1, characterId, axeSlot } = await playerInWorld1(WORLD_1_PORT, token);
    clients.push(inWorld1);

    // The other process finds the cut-off one gone from Redis and unlists world 1 (it opens it itself only
    // once it has been missing for 8 s); the same player logs in to world 2 meanwhile.
    partition.down();
    await waitForAsync(async () => !(await worldOneListed()), "world 1 unlisted", 30_000);
    const inWorld2 = await WsClient.connect(`ws://127.0.0.1:${WORLD_2_PORT}/ws?world=2`, { header: token });
    clients.push(inWorld2);
    const arrived = await inWorld2.first();
    assert.equal(arrived.event, "player:sync", JSON.stringify(arrived.data));

    // Both sessions drop the axe: world 1's may no longer write.
    inWorld1.send("player:action", { action: "drop", inventorySlot: axeSlot }, "drop1");
    inWorld2.send("player:action", { action: "drop", inventorySlot: axeSlot }, "drop2");
    await inWorld2.received((frame) => frame.id === "drop2" && frame.event === "player:sync");
    await sleep(1000);
    assert.deepEqual(await storedAxes(database.url, characterId), ["ground of world 2"]);
  });
});
