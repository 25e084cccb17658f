import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { type AddressInfo, createServer } from "node:net";
import express from "express";
import { errorHandler } from "../../src/api/errors.js";
import { loadConfig } from "../../src/config/config.js";
import { createRateLimits, type RateLimits } from "../../src/limits/rate-limits.js";
import { waitForAsync } from "../support/players.js";
import { type LogLine, recordingLogger } from "../support/recording-logger.js";
import { hasRedisServer, startRedis, stopRedis } from "../support/redis-server.js";
import { TEST_PORT } from "../support/server.js";

/** A Redis of the test's own, which it stops and starts again (the suites' shared one stays up). */
const REDIS_PORT = TEST_PORT + 71;

/** A port nothing listens on: a Redis that is away. */
async function unusedPort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => probe.once("listening", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface LimitedApp {
  baseUrl: string;
  /** What the rate limits logged, in order. */
  logged: LogLine[];
  close(): Promise<void>;
}

/** An app whose /api is behind the REST limit (3 a minute) counted in the Redis at `redisPort`. */
async function limitedApp(redisPort: number): Promise<LimitedApp> {
  const { logger, lines: logged } = recordingLogger("info");
  const config = loadConfig({
    NODE_ENV: "test",
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    RATE_LIMIT_REST_PER_MIN: "3",
  });
  const limits: RateLimits = createRateLimits(config, logger);
  const app = express();
  app.use("/api", limits.rest, (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler(logger));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logged,
    close: async () => {
      server.close();
      await limits.close();
    },
  };
}

describe("rate limits whose Redis is away from the start", () => {
  let app: LimitedApp | undefined;
  after(() => app?.close());

  it("let the first requests through, logging the outage alone (no complaint about the counts)", async () => {
    app = await limitedApp(await unusedPort());
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${app.baseUrl}/api/thing`)).status, 200);
    assert.deepEqual(
      app.logged.map((line) => [line.level, line.msg]),
      [[40, "REST requests cannot be counted: they pass uncounted until Redis answers"]],
    );
  });
});

(hasRedisServer ? describe : describe.skip)("rate limits while their Redis is away", function () {
  this.timeout(30000);
  let redis: ChildProcess;
  let app: LimitedApp;

  before(async () => {
    redis = startRedis(REDIS_PORT);
    app = await limitedApp(REDIS_PORT);
  });
  after(async () => {
    await app?.close();
    if (redis) await stopRedis(redis);
  });

  const statuses = async (count: number) => {
    const answered: number[] = [];
    for (let i = 0; i < count; i++) answered.push((await fetch(`${app.baseUrl}/api/thing`)).status);
    return answered;
  };

  /** Sends requests until one is counted as a window's first (RateLimit's r: what is left of the limit). */
  const firstCounted = () =>
    waitForAsync(
      async () => {
        const response = await fetch(`${app.baseUrl}/api/thing`);
        return response.headers.get("ratelimit")?.includes("r=2") ?? false;
      },
      "a counted request",
      10000,
    );

  it("lets requests through uncounted, at once, and counts them again once Redis is back", async () => {
    // Counted in Redis once it is up: the fourth request is over the limit.
    await firstCounted();
    assert.deepEqual(await statuses(3), [200, 200, 429]);

    await stopRedis(redis);
    const loggedBefore = app.logged.length;
    const started = Date.now();
    assert.deepEqual(await statuses(5), [200, 200, 200, 200, 200]);
    assert.ok(Date.now() - started < 2000, `five requests took ${Date.now() - started} ms`);
    const outage = app.logged.slice(loggedBefore);
    assert.deepEqual(
      outage.map((line) => [line.level, line.msg]),
      [[40, "REST requests cannot be counted: they pass uncounted until Redis answers"]],
    );

    // A new Redis knows no counts (nor the store's scripts): counting starts over.
    redis = startRedis(REDIS_PORT);
    await firstCounted();
    assert.deepEqual(await statuses(3), [200, 200, 429]);
    assert.ok(app.logged.some((line) => line.msg === "REST requests are counted again"));
  });
});
