import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

describe("/api/v1/world", () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "50" });
    ({ token } = await signInAnonymously(server));
  });
  after(() => server?.stop());

  it("GET /api/v1/world reports the world that opens with the server: its tick runs, its NPCs are placed", async () => {
    const world = async () => {
      const response = await request(server, "/api/v1/world", { token });
      assert.equal(response.status, 200);
      return response.json();
    };
    const first = await world();
    const { areas } = server.runtime.gameData;
    assert.equal(first.playersOnline, 0);
    assert.equal(first.areas, areas.length);
    const { entities } = first;
    assert.equal(entities.players, 0);
    assert.equal(
      entities.npcs,
      areas.reduce((sum, area) => sum + area.npcSpawns.length, 0),
    );
    assert.equal(entities.items, 0);
    // The resources the manifests place, and the world's fixed objects (banks, ranges) beside them.
    assert.ok(entities.resources >= areas.reduce((sum, area) => sum + area.resources.length, 0));
    assert.ok(Math.abs(Date.parse(first.time) - Date.now()) < 5000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok((await world()).tick > first.tick, "the tick advances with no player in the world");
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
