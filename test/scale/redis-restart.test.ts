import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@colyseus/sdk";
import { Redis } from "ioredis";
import { Inbox, leave, sleep, waitForAsync } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, startServerProcess } from "../support/processes.js";
import { accepting, hasRedisServer, startRedis, stopRedis } from "../support/redis-server.js";
import { WsClient } from "../support/ws-client.js";

const { server: PORT, redis: REDIS_PORT } = PROCESS_PORTS.redisRestart;
/** Colyseus's connections (presence publishing and subscriptions, room listings). */
const CONNECTIONS = ["presence (publishing)", "presence (subscriptions)", "room listings"];

(hasRedisServer ? describe : describe.skip)("a server whose Redis restarts", function () {
  this.timeout(60000);
  let redis: ChildProcess;
  let server: ServerProcess | undefined;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-redis-restart-"));
    redis = startRedis(REDIS_PORT);
    await accepting(REDIS_PORT);
    server = await startServerProcess(PORT, {
      DATA_DIR: dataDir,
      PGLITE_STORAGE: "memory",
      REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`,
      PUBLIC_ADDRESS: `127.0.0.1:${PORT}`,
      WORLD_TICK_MS: "100",
    });
  });
  after(async () => {
    await server?.stop();
    if (redis) await stopRedis(redis);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const signIn = async () => {
    const response = await fetch(`${server!.baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
    assert.equal(response.status, 201);
    return ((await response.json()) as { token: string }).token;
  };
  const logLines = () =>
    server!
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: number; msg: string });

  const joinWorld = async (token: string) => {
    const sdk = new Client(server!.baseUrl);
    sdk.auth.token = token;
    const room = await sdk.joinOrCreate("world");
    const inbox = new Inbox();
    room.onMessage("*", (event, data) => inbox.push(String(event), data));
    await inbox.next("player:sync", () => true, 5000, true);
    return room;
  };

  it("keeps its players in the one world through a restart that empties Redis, and logs the outage once a connection", async () => {
    const playing = await WsClient.connect(`ws://127.0.0.1:${PORT}/ws`, { header: await signIn() });
    await playing.next("player:sync");
    const [duringToken, afterToken, wsToken] = [await signIn(), await signIn(), await signIn()];

    await stopRedis(redis);
    // A join that looks for the world while Redis is away, and long enough for several reconnection attempts.
    const joinedDuring = joinWorld(duringToken);
    const wsDuring = WsClient.connect(`ws://127.0.0.1:${PORT}/ws`, { header: wsToken });
    await sleep(3000);
    playing.send("player:chat", { message: "during the outage" });
    await playing.next("chat:message", (data) => data.message === "during the outage");

    // A Redis that kept nothing: the world's listing is gone with the rest.
    redis = startRedis(REDIS_PORT);
    const rooms = [await joinedDuring];
    const second = await wsDuring;
    await second.received((frame) => frame.event === "player:sync", 10000);
    second.send("player:chat", { message: "ws during" });
    await playing.next("chat:message", (data) => data.message === "ws during");
    await waitForAsync(
      async () =>
        logLines().filter((line) => line.msg.endsWith("Redis is reached again")).length ===
        CONNECTIONS.length,
      "every connection reconnected",
    );
    rooms.push(await joinWorld(afterToken));
    // Both joined the world the /ws player is in (a second world would have closed the first one).
    for (const [i, room] of rooms.entries()) {
      room.send("player:chat", { message: `joined ${i}` });
      await playing.next("chat:message", (data) => data.message === `joined ${i}`);
    }
    await Promise.all(rooms.map(leave));
    await playing.close();

    assert.doesNotMatch(server!.output(), /\[ioredis\]|^RedisPresence:/m, "plain-text Redis complaints");
    const outage = logLines().filter((line) => CONNECTIONS.some((what) => line.msg.startsWith(`${what}:`)));
    assert.deepEqual(
      outage.map((line) => [line.level, line.msg]).sort(),
      CONNECTIONS.flatMap((what) => [
        [40, `${what}: Redis cannot be reached; reconnecting`],
        [30, `${what}: Redis is reached again`],
      ]).sort(),
    );
  });

  it("finds its world again when a lookup misses a listing Redis lost, without waiting for a reconnection", async () => {
    // The race a restart makes (a lookup answered before the relisting its reconnection starts), made
    // certain: the listing goes while every connection stays up, so only a missed lookup can restore it.
    const playing = await WsClient.connect(`ws://127.0.0.1:${PORT}/ws`, { header: await signIn() });
    await playing.next("player:sync");
    const flush = new Redis(`redis://127.0.0.1:${REDIS_PORT}`);
    await flush.flushall();
    flush.disconnect();
    const room = await joinWorld(await signIn());
    room.send("player:chat", { message: "same world" });
    await playing.next("chat:message", (data) => data.message === "same world");
    await leave(room);
    await playing.close();
  });
});
