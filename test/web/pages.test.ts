import assert from "node:assert/strict";
import type { Server } from "node:http";
import { Room } from "@colyseus/core";
import express from "express";
import { corsHeadersFor } from "../../src/api/cors.js";
import { errorHandler, notFound } from "../../src/api/errors.js";
import { loadConfig } from "../../src/config/config.js";
import { createRateLimits } from "../../src/limits/rate-limits.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { mountAdminTools } from "../../src/web/admin-tools.js";
import { expectError, request, signInAnonymously } from "../api/support.js";
import { joinAsNewPlayer, leave, waitForAsync } from "../support/players.js";
import { startTestServer, TEST_PORT, type TestServer } from "../support/server.js";
import { connectNewPlayer } from "../support/ws-client.js";

describe("the web pages over HTTP", function () {
  this.timeout(60000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.stop());

  it("serves the landing page, the client and the dashboard, with their scripts", async () => {
    for (const [path, marker] of [
      ["/", 'href="/play"'],
      ["/play", '<canvas id="map"'],
      ["/dashboard", 'id="create"'],
    ] as const) {
      const response = await request(server, path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get("content-type") ?? "", /text\/html/);
      const page = await response.text();
      assert.ok(page.includes(marker), `${path} is the page`);
      assert.ok(page.includes('<script src="/env.js">'), `${path} reads its configuration from /env.js`);
    }
    const script = await request(server, "/web/play.js");
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type") ?? "", /javascript/);
    const docs = await request(server, "/docs/protocol.md");
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /^# The `\/ws` JSON protocol/);
    // Only the pages' own folder is served there.
    await expectError(await request(server, "/web/%2e%2e/package.json"), 404, "not_found");
    await expectError(await request(server, "/web/nothing.js"), 404, "not_found");
  });

  it("tells anyone how many players are online through GET /health; the world endpoints need a token", async () => {
    const counts = async () => {
      const { playersOnline, worlds } = await (await request(server, "/health")).json();
      return { playersOnline, worlds };
    };
    const world = (playersOnline: number) => ({ id: 1, playersOnline, capacity: 2000, full: false });
    assert.deepEqual(await counts(), { playersOnline: 0, worlds: [world(0)] });
    const player = await connectNewPlayer(server);
    try {
      // The counts are asked again at most once a second.
      await waitForAsync(async () => (await counts()).playersOnline === 1, "the player counted");
      assert.deepEqual(await counts(), { playersOnline: 1, worlds: [world(1)] });
    } finally {
      player.client.socket.close(1000);
    }
    for (const path of ["/api/v1/worlds", "/api/v1/world/online"])
      await expectError(await request(server, path), 401, "unauthorized");
    const { token } = await signInAnonymously(server);
    const listed = await request(server, "/api/v1/worlds", { token });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      (await listed.json()).worlds.map(({ id, capacity }: { id: number; capacity: number }) => ({
        id,
        capacity,
      })),
      [{ id: 1, capacity: 2000 }],
    );
  });

  it("opens Colyseus's monitor and playground in development", async () => {
    const monitor = await request(server, "/monitor/");
    assert.equal(monitor.status, 200);
    assert.match(monitor.headers.get("content-type") ?? "", /text\/html/);
    const rooms = await (await request(server, "/monitor/api")).json();
    assert.ok(
      rooms.rooms.some((room: { name: string }) => room.name === "world"),
      "the monitor lists the world room",
    );
    const playground = await request(server, "/playground/");
    assert.equal(playground.status, 200);
    assert.match(playground.headers.get("content-type") ?? "", /text\/html/);
  });

  it("answers no other site's page from the monitor and playground in development: a GET calls room methods", async () => {
    // What another page in the developer's browser could send: a room method, with any caller it likes.
    const call = `/monitor/api/room/call?roomId=none&method=answerAgents&args=${encodeURIComponent("[]")}`;
    const sentByAnotherSite: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "http://evil.example" },
      { referer: "http://localhost:1/page.html" },
    ];
    for (const headers of sentByAnotherSite) {
      for (const path of [call, "/monitor/api", "/playground/"]) {
        const refused = await expectError(await request(server, path, { headers }), 403, "forbidden");
        assert.match(refused.message, /ADMIN_CODE/);
      }
    }
    // Relayed by a proxy the server does not trust (a tunnel on this machine, say): from elsewhere.
    const relayed: Record<string, string>[] = [
      { "x-forwarded-for": "203.0.113.9" },
      { forwarded: "for=203.0.113.9" },
    ];
    for (const headers of relayed)
      await expectError(await request(server, "/monitor/api", { headers }), 403, "forbidden");
    // The monitor's own page, on the server's address, is answered.
    const own = await request(server, "/monitor/api", {
      headers: { "sec-fetch-site": "same-origin", referer: `${server.baseUrl}/monitor/` },
    });
    assert.equal(own.status, 200);
  });

  it("leaves the rooms' authentication to them with the playground loaded", async () => {
    // The playground's @colyseus/auth replaces Colyseus's static Room.onAuth with a JWT check of its own,
    // which refuses every token of this server: the trade room, which inherits it, would refuse its players.
    assert.equal(await Room.onAuth("not a token the playground's auth could verify", {}, {} as never), true);
  });

  it("sends an SDK player only the protocol's messages with the playground loaded", async () => {
    // The playground patches every room's join to send its own `__playground_message_types`.
    const player = await joinAsNewPlayer(server);
    try {
      assert.equal(player.inbox.received[0]?.event, "player:sync", "the first message is player:sync");
      assert.deepEqual(
        player.inbox.received.filter(({ event }) => event.startsWith("__")),
        [],
        "no message of the playground's",
      );
    } finally {
      await leave(player.room);
    }
  });
});

describe("Colyseus's monitor and playground in production", function () {
  this.timeout(30000);
  const ADMIN_CODE = "open sesame";
  const PORT = TEST_PORT + 7;
  const base = `http://127.0.0.1:${PORT}`;
  let listening: Server | undefined;

  async function serve(adminCode: string | undefined): Promise<void> {
    const config = loadConfig({ NODE_ENV: "test", RATE_LIMIT_AUTH_PER_MIN: "3" });
    const logger = createLogger("silent", "json");
    const app = express();
    // As Colyseus's request listener does before Express: the interface's CORS headers on every response.
    app.use((req, res, next) => {
      res.set(corsHeadersFor(req.get("origin"), config));
      next();
    });
    mountAdminTools(app, {
      production: true,
      adminCode,
      authAttempts: createRateLimits(config, logger, `web-test-${Date.now()}:`).authAttempts,
      trustProxy: 0,
    });
    app.use(notFound);
    app.use(errorHandler(logger));
    await new Promise<void>((resolve) => {
      listening = app.listen(PORT, "127.0.0.1", () => resolve());
    });
  }
  afterEach(async () => {
    await new Promise((resolve) => listening?.close(resolve));
    listening = undefined;
  });

  const basic = (password: string) => ({
    authorization: `Basic ${Buffer.from(`admin:${password}`).toString("base64")}`,
  });

  it("asks for the admin code as the password of HTTP basic authentication", async () => {
    await serve(ADMIN_CODE);
    for (const path of ["/monitor/", "/monitor/api", "/playground/"]) {
      const refused = await fetch(`${base}${path}`);
      assert.equal(refused.status, 401, path);
      assert.match(refused.headers.get("www-authenticate") ?? "", /^Basic realm=/);
      assert.equal((await refused.json()).error.code, "unauthorized");
      const opened = await fetch(`${base}${path}`, { headers: basic(ADMIN_CODE) });
      assert.equal(opened.status, 200, `${path} with the admin code`);
    }
  });

  it("counts wrong codes as authentication attempts, refusing them, the right one too, with 429 past the limit", async () => {
    await serve(ADMIN_CODE);
    // The right code alone is not counted: the monitor's page sends it with each of its requests.
    for (let i = 0; i < 5; i++)
      assert.equal((await fetch(`${base}/monitor/`, { headers: basic(ADMIN_CODE) })).status, 200);
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await fetch(`${base}/monitor/`, { headers: basic(`guess ${i}`) })).status);
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    const limited = await fetch(`${base}/monitor/`, { headers: basic("another guess") });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    // Were the right code let through now, a guesser would tell it by its answer among the 429s.
    const right = await fetch(`${base}/monitor/`, { headers: basic(ADMIN_CODE) });
    assert.equal(right.status, 429);
  });

  it("answers no other site's page, the admin code sent or not, and lets none read an answer", async () => {
    await serve(ADMIN_CODE);
    // A preview site's page may read the API's answers with credentials; a browser signed in to the
    // monitor sends the code with whatever a page sends there.
    const preview = "https://anyone.vercel.app";
    const sentByAnotherSite: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site", origin: preview },
      { "sec-fetch-site": "same-site" },
      { origin: preview },
      { referer: `${preview}/page.html` },
    ];
    for (const headers of sentByAnotherSite) {
      for (const path of ["/monitor/api", "/playground/"]) {
        const refused = await fetch(`${base}${path}`, { headers: { ...basic(ADMIN_CODE), ...headers } });
        const body = await refused.json();
        assert.equal(refused.status, 403, `${path} ${JSON.stringify(headers)}`);
        assert.equal(body.error.code, "forbidden");
        assert.equal(refused.headers.get("access-control-allow-origin"), null);
      }
    }
    // The monitor's own page is answered.
    const own = await fetch(`${base}/monitor/api`, {
      headers: { ...basic(ADMIN_CODE), "sec-fetch-site": "same-origin" },
    });
    assert.equal(own.status, 200);
    const older = await fetch(`${base}/monitor/api`, { headers: { ...basic(ADMIN_CODE), origin: base } });
    assert.equal(older.status, 200);
    // The API itself still answers the preview site (the interface's CORS rules).
    const api = await fetch(`${base}/anything`, { headers: { origin: preview } });
    assert.equal(api.headers.get("access-control-allow-origin"), preview);
  });

  it("serves neither without an admin code", async () => {
    await serve(undefined);
    for (const path of ["/monitor/", "/playground/"]) {
      const response = await fetch(`${base}${path}`, { headers: basic("") });
      assert.equal(response.status, 404, path);
    }
  });
});

describe("the monitor in development behind a trusted proxy", function () {
  this.timeout(60000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ TRUST_PROXY: "1" });
  });
  after(() => server?.stop());

  it("answers the pages of this machine's browser, not a client the proxy relays from elsewhere", async () => {
    for (const path of ["/monitor/api", "/playground/"]) {
      const relayed = await request(server, path, { headers: { "x-forwarded-for": "203.0.113.9" } });
      await expectError(relayed, 403, "forbidden");
      const local = await request(server, path, { headers: { "x-forwarded-for": "127.0.0.1" } });
      assert.equal(local.status, 200, path);
    }
  });
});
