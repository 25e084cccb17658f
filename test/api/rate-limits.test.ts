import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, MatchMakeError } from "@colyseus/sdk";
import { WebSocket } from "ws";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { loadConfig } from "../../src/config/config.js";
import { createRateLimits, type RateLimits } from "../../src/limits/rate-limits.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { relayPass } from "../../src/ws/relay-pass.js";
import { leave, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { refusedUpgrade, WsClient } from "../support/ws-client.js";
import { expectError, request, signInAnonymously } from "./support.js";

/**
 * Long enough that the requests a test counts fall in one window even where the machine stalls the
 * process for a second or more (a loaded CI machine did, and a 1.5 s window ended between them).
 */
const WINDOW_MS = 4000;
const WINDOW_SECONDS = Math.ceil(WINDOW_MS / 1000);

/** Waits for the current window to end (the block lasts until then). */
const windowEnds = () => sleep(WINDOW_MS + 100);

const ORIGIN = "https://game.example";

/** A seat request as the SDK makes it, from a page of ORIGIN. */
const askForSeat = (server: TestServer, token: string, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/matchmake/joinOrCreate/world`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
      origin: ORIGIN,
      ...headers,
    },
    body: "{}",
  });

describe("rate limits", () => {
  describe("REST API", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        RATE_LIMIT_REST_PER_MIN: "3",
        RATE_LIMIT_AUTH_PER_MIN: "1000",
        RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
        CORS_ALLOWED_ORIGINS: ORIGIN,
      });
    });
    after(() => server?.stop());

    it("answers the request past the limit with 429, Retry-After and the RateLimit headers, until the window ends", async () => {
      for (let i = 0; i < 10; i++) {
        assert.equal((await request(server, "/health")).status, 200, "health is not counted");
        assert.equal((await request(server, "/env.js")).status, 200, "/env.js is not counted");
        assert.equal(
          (await request(server, "/manifests/npcs.json")).status,
          200,
          "manifests are not counted",
        );
      }
      for (let i = 0; i < 3; i++) {
        const response = await request(server, "/api/v1/world");
        assert.equal(response.status, 401);
        assert.match(response.headers.get("ratelimit") ?? "", new RegExp(`r=${2 - i}`));
      }
      const limited = await request(server, "/api/v1/world");
      const retryAfter = Number(limited.headers.get("retry-after"));
      assert.ok(retryAfter >= 1 && retryAfter <= WINDOW_SECONDS, `Retry-After ${retryAfter}`);
      assert.match(limited.headers.get("ratelimit-policy") ?? "", new RegExp(`q=3; w=${WINDOW_SECONDS}`));
      await expectError(limited, 429, "rate_limited");
      await expectError(await request(server, "/api/v1/world"), 429, "rate_limited");

      await windowEnds();
      await expectError(await request(server, "/api/v1/world"), 401, "unauthorized");
    });

    it("lets a page of an allowed origin read Retry-After and the RateLimit headers of a 429", async () => {
      await windowEnds();
      const headers = { origin: ORIGIN };
      for (let i = 0; i < 3; i++) await request(server, "/api/v1/world", { headers });
      const limited = await request(server, "/api/v1/world", { headers });
      await expectError(limited, 429, "rate_limited");
      assert.equal(limited.headers.get("access-control-allow-origin"), ORIGIN);
      // A browser hides every response header a cross-origin page is not told it may read, beyond a few
      // such as Content-Type: without this list the page would see the 429 but not when to retry.
      const exposed = (limited.headers.get("access-control-expose-headers") ?? "")
        .split(",")
        .map((name) => name.trim().toLowerCase());
      for (const name of ["retry-after", "ratelimit", "ratelimit-policy"])
        assert.ok(exposed.includes(name), `${name} is exposed: ${exposed.join(", ")}`);
      for (const name of ["retry-after", "ratelimit", "ratelimit-policy"])
        assert.ok(limited.headers.get(name), `the 429 carries ${name}`);
    });

    it("counts the skill-unlock map like the rest of /api", async () => {
      await windowEnds();
      for (let i = 0; i < 3; i++)
        assert.equal((await request(server, "/api/data/skill-unlocks")).status, 200);
      await expectError(await request(server, "/api/data/skill-unlocks"), 429, "rate_limited");
      await expectError(await request(server, "/api/v1/world"), 429, "rate_limited");
    });

    it("counts the SDK's seat requests too, and refuses them past the limit in the matchmaker's error shape", async () => {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      await windowEnds();
      for (let i = 0; i < 5; i++) {
        const preflight = await fetch(`${server.baseUrl}/matchmake/joinOrCreate/world`, {
          method: "OPTIONS",
          headers: { origin: ORIGIN, "access-control-request-method": "POST" },
        });
        assert.equal(preflight.status, 204, "preflights are not counted");
      }
      for (let i = 0; i < 3; i++) assert.equal((await askForSeat(server, token)).status, 200);

      const refused = await askForSeat(server, token);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get("retry-after")) >= 1);
      assert.equal(refused.headers.get("access-control-allow-origin"), ORIGIN, "a page can read the refusal");
      assert.deepEqual(await refused.json(), { code: 429, error: "too many requests; retry later" });
      await expectError(await request(server, "/api/v1/world", { token }), 429, "rate_limited");
      const sdk = new Client(server.baseUrl);
      sdk.auth.token = token;
      await assert.rejects(
        sdk.joinOrCreate("world"),
        (error: unknown) =>
          error instanceof MatchMakeError && error.code === 429 && /too many/.test(error.message),
        "the SDK reports the refusal with its status",
      );

      await windowEnds();
      const room = await sdk.joinOrCreate("world");
      await leave(room);
    });

    it("counts /ws upgrades too, and refuses them past the limit with 429 and Retry-After", async () => {
      // Four upgrades at once, by players of their own (the limit counts the client's address): each is
      // counted as it arrives, before the login it asks for, so the fourth is refused however long the
      // logins take on a loaded machine.
      const tokens = await Promise.all(
        [0, 1, 2, 3].map(async () => (await issueAnonymousToken(server.runtime.jwtSecret)).token),
      );
      const token = tokens[0]!;
      await windowEnds();
      const outcomes = await Promise.allSettled(
        tokens.map((each) => refusedUpgrade(server.wsUrl, { header: each })),
      );
      const accepted = outcomes.filter(
        (outcome) => outcome.status === "rejected" && /was accepted/.test(String(outcome.reason)),
      );
      assert.equal(accepted.length, 3, "three upgrades within the limit");
      const refusals = outcomes.filter((outcome) => outcome.status === "fulfilled");
      assert.equal(refusals.length, 1, "the fourth refused");
      const refused = refusals[0]!.value;
      assert.equal(refused.status, 429);
      assert.equal(JSON.parse(refused.body).error.code, "rate_limited");
      assert.ok(Number(refused.retryAfter) >= 1, `Retry-After ${refused.retryAfter}`);
      await expectError(await request(server, "/api/v1/world", { token }), 429, "rate_limited");

      // A connection relayed by another process of the server was counted where it arrived.
      const relayed = await WsClient.connect(
        server.wsUrl,
        { header: token },
        relayPass(server.runtime.jwtSecret).headers,
      );
      assert.equal((await relayed.first()).event, "player:sync");
      await relayed.close();
    });

    it("counts every upgrade Colyseus takes (its latency probe, a path naming no room), not an SDK join's", async () => {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      const wsBase = server.baseUrl.replace(/^http/, "ws");
      await windowEnds();
      const sdk = new Client(server.baseUrl);
      sdk.auth.token = token;
      // One count, for the seat request: the upgrade that takes the seat is not counted again.
      const room = await sdk.joinOrCreate("world");
      try {
        for (const path of ["/", "/no-process/no-room"]) {
          const socket = new WebSocket(`${wsBase}${path}`);
          await new Promise((resolve, reject) => {
            socket.once("open", resolve);
            socket.once("error", reject);
          });
          socket.terminate();
        }
        for (const path of ["/latency", `/${room.roomId}/${room.roomId}?sessionId=forged`]) {
          const refused = await refusedUpgrade(`${wsBase}${path}`);
          assert.equal(refused.status, 429, path);
          assert.equal(JSON.parse(refused.body).error.code, "rate_limited");
          assert.ok(Number(refused.retryAfter) >= 1, `Retry-After ${refused.retryAfter}`);
        }
        await expectError(await request(server, "/api/v1/world", { token }), 429, "rate_limited");
      } finally {
        await leave(room);
      }
    });
  });

  describe("the server's own agents", () => {
    let server: TestServer;
    before(async () => {
      // One request a minute from the server's own address, which the agents join from.
      server = await startTestServer({
        RATE_LIMIT_REST_PER_MIN: "1",
        WORLD_TICK_MS: "50",
        AGENTS: "Ada,Bea,Cid",
      });
    });
    after(() => server?.stop());

    it("join beside any limit on their address, which a request that copies their header does not escape", async () => {
      await waitForAsync(
        async () => server.runtime.agents.list().filter((agent) => agent.online).length === 3,
        "all three agents are in the world",
      );
      const token = (await signInAnonymously(server)).token;
      const forged = { "x-own-agent-pass": "x".repeat(43) };
      await expectError(await request(server, "/api/v1/world", { token }), 429, "rate_limited");
      assert.equal((await askForSeat(server, token, forged)).status, 429);
    });
  });

  describe("authentication attempts", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        RATE_LIMIT_REST_PER_MIN: "1000",
        RATE_LIMIT_AUTH_PER_MIN: "3",
        RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
      });
    });
    after(() => server?.stop());

    it("count token issuance and failed verifications together, and block both until the window ends", async () => {
      const { token } = await signInAnonymously(server);
      await signInAnonymously(server);
      await expectError(await request(server, "/api/v1/world", { token: "forged" }), 401, "unauthorized");

      const issuance = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
      assert.ok(Number(issuance.headers.get("retry-after")) >= 1);
      await expectError(issuance, 429, "rate_limited");
      const verification = await request(server, "/api/v1/world", { token: "forged" });
      assert.ok(Number(verification.headers.get("retry-after")) >= 1);
      await expectError(verification, 429, "rate_limited");
      assert.equal(
        (await request(server, "/api/v1/world", { token })).status,
        200,
        "a valid token is no attempt",
      );

      await windowEnds();
      await signInAnonymously(server);
      await expectError(await request(server, "/api/v1/world", { token: "forged" }), 401, "unauthorized");
    });

    it("count failed /ws tokens by the connection's address, whatever X-Forwarded-For it claims", async () => {
      await windowEnds();
      const forged = (hop: string) =>
        refusedUpgrade(server.wsUrl, { header: "forged" }, { "x-forwarded-for": hop, "x-real-ip": hop });
      for (let i = 0; i < 3; i++) assert.equal((await forged(`203.0.113.${i}`)).status, 401);
      const refused = await forged("203.0.113.99");
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.retryAfter) >= 1, "Retry-After, as on the REST API");
    });

    it("count failed SDK join tokens by the connection's address, whatever X-Forwarded-For it claims", async () => {
      await windowEnds();
      const forged = (hop: string) =>
        fetch(`${server.baseUrl}/matchmake/joinOrCreate/world`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: "Bearer forged",
            "x-forwarded-for": hop,
            "x-real-ip": hop,
          },
          body: "{}",
        });
      for (let i = 0; i < 3; i++) assert.equal((await forged(`203.0.113.${i}`)).status, 401);
      const refused = await forged("203.0.113.99");
      assert.equal(refused.status, 429);
      assert.match((await refused.json()).error, /too many/i);
    });

    it("count the anonymous identity a /ws connection without a token is given, and refuse it past the limit", async () => {
      await windowEnds();
      await signInAnonymously(server);
      const tokenless = await WsClient.connect(server.wsUrl);
      await tokenless.first();
      await tokenless.close();
      await signInAnonymously(server);
      const refused = await refusedUpgrade(server.wsUrl);
      assert.equal(refused.status, 429);
      // No attempt failed: the refusal says what REST's token issuance says past the same limit.
      const issuance = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
      assert.deepEqual(JSON.parse(refused.body).error, (await issuance.json()).error);
    });
  });

  // Needs a Redis server: CI sets TEST_REDIS_URL (as for the scale-out suites).
  const withRedis = process.env.TEST_REDIS_URL ? describe : describe.skip;
  withRedis("in Redis (REDIS_URL), shared by every process", () => {
    const config = loadConfig({
      NODE_ENV: "test",
      REDIS_URL: process.env.TEST_REDIS_URL,
      RATE_LIMIT_AUTH_PER_MIN: "3",
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
    });
    const logger = createLogger("silent", "json");
    // Two sets of counters with one key prefix stand for two server processes; the prefix is new each run.
    const prefix = `tileworld-test:${randomUUID()}:`;
    let first: RateLimits;
    let second: RateLimits;
    before(() => {
      first = createRateLimits(config, logger, prefix);
      second = createRateLimits(config, logger, prefix);
    });
    after(() => Promise.all([first?.close(), second?.close()]));

    it("blocks a client whose attempts were spread over two processes, until the window ends", async () => {
      assert.equal((await first.authAttempts.hit("203.0.113.7")).limited, false);
      assert.equal((await second.authAttempts.hit("203.0.113.7")).limited, false);
      assert.equal((await first.authAttempts.hit("203.0.113.7")).limited, false);
      const blocked = await second.authAttempts.hit("203.0.113.7");
      assert.equal(blocked.limited, true);
      assert.ok(blocked.retryAfterSeconds >= 1 && blocked.retryAfterSeconds <= WINDOW_SECONDS);
      assert.equal(
        (await first.authAttempts.hit("198.51.100.1")).limited,
        false,
        "other clients are not blocked",
      );

      await windowEnds();
      assert.equal((await first.authAttempts.hit("203.0.113.7")).limited, false);
    });
  });
});
