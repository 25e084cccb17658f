import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { waitForAsync } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, scaleOutEnv, startServerProcess } from "../support/processes.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp.js";
import { type Frame, WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
const [CUT_OFF_PORT, OTHER_PORT] = PROCESS_PORTS.redisPartition;
/** A Redis database of its own, emptied first, so no other suite's keys are in the way. */
const REDIS_DB = 11;

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

scaleOut("a world's process cut off from Redis while the other processes are not", function () {
  this.timeout(90_000);
  const secret = randomBytes(32).toString("hex");
  let cutOff: ServerProcess;
  let other: ServerProcess;
  let partition: TcpProxy;
  let database: { url: string; drop(): Promise<void> };
  let redis: Redis;
  const clients: WsClient[] = [];

  before(async () => {
    const url = new URL(redisBase!);
    redis = new Redis(`${redisBase}/${REDIS_DB}`);
    await redis.flushdb();
    database = await freshDatabaseUrl(postgresUrl!);
    // The first process reaches Redis through a proxy the test cuts; both reach the database.
    partition = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
    const env = (port: number, redisUrl: string) =>
      scaleOutEnv(port, { redisUrl, databaseUrl: database.url, secret, dataDir: "/tmp/tileworld-partition" });
    cutOff = await startServerProcess(
      CUT_OFF_PORT,
      env(CUT_OFF_PORT, `redis://127.0.0.1:${partition.port}/${REDIS_DB}`),
    );
    other = await startServerProcess(OTHER_PORT, env(OTHER_PORT, `${redisBase}/${REDIS_DB}`));
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await Promise.all([cutOff, other].map((server) => server?.stop()));
    await partition?.close();
    await redis?.flushdb();
    redis?.disconnect();
    await database?.drop();
  });

  /** The public addresses world 1 is listed at. */
  async function worldListedAt(): Promise<string[]> {
    const listings = Object.values(await redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
    return listings.filter((listing) => listing.name === "world").map((listing) => listing.publicAddress);
  }
  const address = (server: ServerProcess) => `127.0.0.1:${server.port}`;

  async function connect(server: ServerProcess, token: string): Promise<{ client: WsClient; sync: any }> {
    const client = await WsClient.connect(`ws://127.0.0.1:${server.port}/ws`, { header: token });
    clients.push(client);
    const first = await client.first();
    assert.equal(first.event, "player:sync", `greeted with ${JSON.stringify(first)}`);
    return { client, sync: first.data };
  }
  const showsAxe = (frame: Frame) =>
    frame.event === "world:update" &&
    frame.data.added?.some((entity: any) => entity.kind === "item" && entity.type === "bronze_axe");

  it("opens the world on another process, closes the cut-off one, and loses or copies no item", async () => {
    assert.deepEqual(await worldListedAt(), [address(cutOff)]);
    const { token } = await issueAnonymousToken(new TextEncoder().encode(secret));
    const player = await connect(cutOff, token);

    partition.down();
    // Cut off from Redis, the world plays on for the players it has, writing under its lease: the axe
    // dropped now is on the ground and out of the inventory, in the database too.
    const axe = player.sync.inventory.find((entry: any) => entry.itemId === "bronze_axe");
    player.client.send("player:action", { action: "drop", inventorySlot: axe.slot }, "drop");
    const dropped = await player.client.received(
      (frame) => frame.id === "drop" && frame.event === "player:sync",
    );
    assert.ok(!dropped.data.inventory.some((entry: any) => entry.itemId === "bronze_axe"));

    // The others find its process gone from Redis and open the world themselves.
    await waitForAsync(
      async () => (await worldListedAt()).join() === address(other),
      "world 1 opened on the process Redis still reaches",
      30_000,
    );
    // The cut-off world, its lease taken, closes at its next write (an eaten shrimp, refused): its player
    // is let go rather than play on in a world whose moves are not kept.
    const shrimp = dropped.data.inventory.find((entry: any) => entry.itemId === "shrimps");
    player.client.send("inventory:use", { inventorySlot: shrimp.slot }, "eat");
    const closed = await Promise.race([
      player.client.closed,
      new Promise((resolve) => setTimeout(() => resolve("still open"), 10_000)),
    ]);
    assert.notEqual(closed, "still open", "the cut-off world let its player go");

    partition.up();
    // Once Redis is back, the cut-off process lists no world of its own again and relays its clients.
    await waitForAsync(async () => {
      const back = await connect(cutOff, token).catch(() => undefined);
      if (!back) return false;
      assert.deepEqual(back.sync.inventory, dropped.data.inventory, "the items as they were kept");
      await back.client.received(showsAxe);
      return true;
    }, "the player back in world 1 through the process that was cut off");
    // Longer than Colyseus's swept check, which lists again the rooms of a process back on Redis.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    assert.deepEqual(await worldListedAt(), [address(other)], "one world 1, on the other process");
  });
});
