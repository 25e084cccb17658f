import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { RedisDriver } from "@colyseus/redis-driver";
import { Redis } from "ioredis";
import {
  forgetFailedLookups,
  type LookupInternals,
  missingLookupInternals,
  PATCHED_DRIVER_VERSION,
} from "../../src/server/redis-driver-lookups.js";
import { PROCESS_PORTS } from "../support/processes.js";
import { accepting, hasRedisServer, startRedis, stopRedis } from "../support/redis-server.js";

const { redis: REDIS_PORT } = PROCESS_PORTS.redisDriverLookups;
const FIX = "src/server/redis-driver-lookups.ts";
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("the fix reaching into @colyseus/redis-driver's internals", () => {
  it("is pinned exactly to the driver version it was written for, which is the one installed", () => {
    const pinned = readJson("package.json").dependencies["@colyseus/redis-driver"];
    const locked = readJson("package-lock.json").packages[""].dependencies["@colyseus/redis-driver"];
    const installed = readJson("node_modules/@colyseus/redis-driver/package.json").version;
    assert.deepEqual(
      { pinned, locked, installed },
      { pinned: PATCHED_DRIVER_VERSION, locked: PATCHED_DRIVER_VERSION, installed: PATCHED_DRIVER_VERSION },
      `@colyseus/redis-driver moved from ${PATCHED_DRIVER_VERSION}: check that ${FIX} still applies to the new ` +
        "version (this suite's canary says), then pin it exactly in package.json and PATCHED_DRIVER_VERSION",
    );
  });

  (hasRedisServer ? describe : describe.skip)("on a Redis that is away, then back", function () {
    this.timeout(20000);
    let redis: ChildProcess | undefined;
    const connections: Redis[] = [];
    /** A driver of its own connection, which fails a command at once while Redis is away. */
    const driver = () => {
      const connection = new Redis(REDIS_PORT, "127.0.0.1", {
        maxRetriesPerRequest: 0,
        retryStrategy: () => 50,
      });
      connection.on("error", () => {});
      connections.push(connection);
      return new RedisDriver(connection);
    };
    after(async () => {
      for (const connection of connections) connection.disconnect();
      if (redis) await stopRedis(redis);
    });

    it("finds the driver's internals where the fix reaches them, and the driver still keeps a failed lookup (canary)", async () => {
      const plain = driver();
      const fixed = driver();
      assert.deepEqual(
        missingLookupInternals(plain),
        [],
        `@colyseus/redis-driver's internals moved: ${FIX} no longer finds what it patches. Read the new ` +
          "RedisDriver.getRooms(): if a failed lookup is still handed to later queries, adapt the fix; if not, remove it",
      );
      assert.equal(forgetFailedLookups(fixed), true);
      await assert.rejects(plain.query({ name: "world" }));
      await assert.rejects(fixed.query({ name: "world" }));
      const internals = plain as unknown as LookupInternals;
      assert.ok(
        Object.values(internals._roomCacheRequestByName).some((kept) => kept instanceof Promise) &&
          internals._concurrentRoomCacheRequest instanceof Promise,
        `@colyseus/redis-driver no longer keeps a failed lookup in _roomCacheRequestByName and ` +
          `_concurrentRoomCacheRequest: ${FIX} reaches for what is not there any more. Check the new getRooms()`,
      );

      redis = startRedis(REDIS_PORT);
      await accepting(REDIS_PORT);
      await Promise.all(connections.map((connection) => connection.ping()));
      // Redis is back: the fixed driver asks it again, the driver as it comes still answers with the failure.
      assert.deepEqual(await fixed.query({ name: "world" }), []);
      assert.deepEqual(await fixed.findOne({ name: "world" }), undefined);
      await assert.rejects(
        plain.query({ name: "world" }),
        /max retries/,
        `@colyseus/redis-driver now forgets a failed lookup itself: remove ${FIX} and FORGET_FAILED_ROOM_LOOKUPS`,
      );
    });
  });
});
