import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

describe("/api/v1/world (no world running: from the manifests)", () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer(GENEROUS_LIMITS);
    ({ token } = await signInAnonymously(server));
  });
  after(() => server?.stop());

  it("GET /api/v1/world counts the areas and the NPCs and resources the manifests place", async () => {
    const response = await request(server, "/api/v1/world", { token });
    assert.equal(response.status, 200);
    const world = await response.json();
    const { areas } = server.runtime.gameData;
    assert.equal(world.tick, 0);
    assert.equal(world.playersOnline, 0);
    assert.equal(world.areas, areas.length);
    assert.deepEqual(world.entities, {
      players: 0,
      npcs: areas.reduce((sum, area) => sum + area.npcSpawns.length, 0),
      items: 0,
      resources: areas.reduce((sum, area) => sum + area.resources.length, 0),
    });
    assert.ok(Math.abs(Date.parse(world.time) - Date.now()) < 5000);
  });

  it("GET /api/v1/world/areas lists every area with its bounds, biome and safety", async () => {
    const response = await request(server, "/api/v1/world/areas", { token });
    assert.equal(response.status, 200);
    const { areas } = await response.json();
    const first = server.runtime.gameData.areas[0];
    assert.equal(areas.length, server.runtime.gameData.areas.length);
    assert.deepEqual(areas[0], {
      id: first?.id,
      name: first?.name,
      bounds: first?.bounds,
      biome: first?.biome,
      safeZone: first?.safeZone,
      levelRange: first?.levelRange,
    });
  });

  it("needs a token for both", async () => {
    await expectError(await request(server, "/api/v1/world"), 401, "unauthorized");
    await expectError(await request(server, "/api/v1/world/areas"), 401, "unauthorized");
  });
});
