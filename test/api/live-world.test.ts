import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import express from "express";
import { answerAgentRequest } from "../../src/agents/requests.js";
import { mountApi } from "../../src/api/index.js";
import { loadConfig } from "../../src/config/config.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import type { LiveWorld } from "../../src/ports/live-world.js";
import type { Runtime } from "../../src/ports/runtime.js";
import { createRuntime } from "../../src/server/runtime.js";
import { createLogger } from "../../src/telemetry/logger.js";

describe("REST API over a running world (LiveWorld)", () => {
  let runtime: Runtime;
  let baseUrl: string;
  let token: string;
  let playerId: string;
  const online = new Map<string, PlayerSync>();
  let running = true;
  const liveWorld: LiveWorld = {
    status: async () =>
      running
        ? {
            tick: 1234,
            playersOnline: online.size,
            entities: { players: online.size, npcs: 7, items: 3, resources: 11 },
          }
        : undefined,
    worlds: async (count, capacity) =>
      Array.from({ length: count }, (_, index) => ({
        id: index + 1,
        playersOnline: index === 0 ? online.size : 0,
        capacity,
        full: false,
      })),
    worldOf: async (id) => (online.has(id) ? 1 : undefined),
    player: async (id) => online.get(id),
    renamed: async (id, name) => {
      const player = online.get(id);
      if (player) online.set(id, { ...player, name });
    },
    // No world here, so no agents beside it nor a lease to fence them: the agent endpoints are tested
    // with a real world.
    agents: (request) => answerAgentRequest(runtime.agents, 1, { check: async () => {} }, request),
  };

  before(async () => {
    const config = loadConfig({ NODE_ENV: "test", PGLITE_STORAGE: "memory" });
    runtime = await createRuntime(config, createLogger("silent", "json"));
    const app = express();
    mountApi(app, runtime, liveWorld);
    runtime.httpServer.on("request", app);
    await new Promise<void>((resolve) => runtime.httpServer.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(runtime.httpServer.address() as AddressInfo).port}`;
    ({ token, playerId } = await (
      await fetch(`${baseUrl}/api/v1/auth/anonymous`, { method: "POST" })
    ).json());
  });
  after(async () => {
    runtime.httpServer.closeAllConnections();
    await new Promise((resolve) => runtime.httpServer.close(resolve));
    await runtime.close();
  });

  const get = async (path: string) =>
    (await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();

  it("reports the world's tick and counts", async () => {
    const world = await get("/api/v1/world");
    assert.equal(world.tick, 1234);
    assert.deepEqual(world.entities, { players: 0, npcs: 7, items: 3, resources: 11 });
  });

  it("without a running world, counts what the manifests place", async () => {
    running = false;
    try {
      const world = await get("/api/v1/world");
      const { areas } = runtime.gameData;
      assert.equal(world.tick, 0);
      assert.equal(world.playersOnline, 0);
      assert.deepEqual(world.entities, {
        players: 0,
        npcs: areas.reduce((sum, area) => sum + area.npcSpawns.length, 0),
        items: 0,
        resources: areas.reduce((sum, area) => sum + area.resources.length, 0),
      });
    } finally {
      running = true;
    }
  });

  it("shows an online player's live state, not the stored one", async () => {
    const stored = await get("/api/v1/player");
    online.set(playerId, { ...stored, position: { x: 40, z: 41 }, health: 4 });
    assert.deepEqual((await get("/api/v1/player")).position, { x: 40, z: 41 });
    assert.deepEqual(await get(`/api/characters/${playerId}/position`), {
      characterId: playerId,
      position: { x: 40, z: 41 },
      areaId: runtime.gameData.startingAreaId,
      online: true,
    });
    assert.equal((await get("/api/v1/world")).playersOnline, 1);
  });
});
