import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestServer, type TestServer } from "../support/server.js";
import { interceptWorldWrites } from "../support/world-writes.js";
import { connectNewPlayer } from "../support/ws-client.js";

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));

describe("GET /health", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.stop());

  it("answers ok with an ISO timestamp and the package version, without a token", async () => {
    const response = await fetch(`${server.baseUrl}/health`);
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.status, "ok");
    assert.equal(body.version, version);
    assert.equal(new Date(body.timestamp).toISOString(), body.timestamp);
  });

  it("asks the database once for all the requests that come while it answers, however many", async () => {
    // A slow database: 50 health checks at once would otherwise take 50 of its connections.
    const { database, httpServer } = server.runtime;
    const ping = database.ping;
    let pings = 0;
    let arrived = 0;
    const count = (request: IncomingMessage) => {
      if (request.url === "/health") arrived++;
    };
    httpServer.on("request", count);
    // It answers once every request has come, however long a loaded machine takes to send them all.
    database.ping = async () => {
      pings++;
      await sleep(300);
      while (arrived < 50) await sleep(10);
      return ping.call(database);
    };
    try {
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => fetch(`${server.baseUrl}/health`)),
      );
      assert.deepEqual(new Set(responses.map((response) => response.status)), new Set([200]));
      assert.equal(pings, 1);
    } finally {
      database.ping = ping;
      httpServer.off("request", count);
    }
  });

  it("reports degraded with 503 while the world's writes fail, though the database answers pings", async () => {
    const ok = await (await fetch(`${server.baseUrl}/health`)).json();
    assert.deepEqual([ok.database, ok.world], ["ok", { database: "ok" }]);
    const player = await connectNewPlayer(server);
    let failed = 0;
    const restore = interceptWorldWrites(server.runtime.worldStore, async () => {
      failed++;
      throw new Error("database unavailable");
    });
    try {
      player.client.send("player:move", { x: player.sync.position.x, z: player.sync.position.z + 2 });
      while (failed === 0) await sleep(50);
      const response = await fetch(`${server.baseUrl}/health`);
      assert.equal(response.status, 503);
      const body = await response.json();
      assert.deepEqual([body.status, body.database, body.world.database], ["degraded", "ok", "waiting"]);
      assert.ok(body.world.waitingMs >= 0);
      assert.equal(body.error.code, "unavailable");
    } finally {
      restore();
    }
    const deadline = Date.now() + 5000;
    let after = await fetch(`${server.baseUrl}/health`);
    while (after.status !== 200 && Date.now() < deadline) {
      await sleep(100);
      after = await fetch(`${server.baseUrl}/health`);
    }
    assert.equal(after.status, 200, "healthy again once a write commits");
    await player.client.close();
  });

  it("reports degraded with 503 once the database stops answering", async () => {
    await server.runtime.database.close();
    const response = await fetch(`${server.baseUrl}/health`);
    assert.equal(response.status, 503);
    const body = await response.json();
    assert.equal(body.status, "degraded");
    assert.equal(body.version, version);
    // Every 5xx carries the protocol's error body.
    assert.equal(body.error.code, "unavailable");
    assert.match(body.error.message, /database/);
  });
});
