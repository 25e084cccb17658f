import assert from "node:assert/strict";
import { waitForAsync } from "../support/players.js";
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
    assert.equal(first.playersOnline, 0);
    // manifests/world-areas.json: meadowbrook, oakwood, stonehill_mines, saltwind_harbor, blackfen_marsh
    assert.equal(first.areas, 5);
    const { entities } = first;
    assert.equal(entities.players, 0);
    // npcSpawns of the five areas: 36 in all
    assert.equal(entities.npcs, 36);
    assert.equal(entities.items, 0);
    // The 47 resources the manifests place, and their 4 stations beside them (two cooking ranges, a
    // furnace and an anvil): 47 + 4 = 51.
    assert.equal(entities.resources, 51);
    assert.ok(Math.abs(Date.parse(first.time) - Date.now()) < 5000);
    await waitForAsync(
      async () => (await world()).tick > first.tick,
      "the tick to advance with no player in the world",
      5000,
    );
  });

  it("GET /api/v1/world/areas lists every area with its bounds, biome and safety", async () => {
    const response = await request(server, "/api/v1/world/areas", { token });
    assert.equal(response.status, 200);
    const { areas } = await response.json();
    // manifests/world-areas.json, in its order; saltwind_harbor has no level range
    assert.deepEqual(
      areas.map((area: { id: string }) => area.id),
      ["meadowbrook", "oakwood", "stonehill_mines", "saltwind_harbor", "blackfen_marsh"],
    );
    assert.deepEqual(areas[0], {
      id: "meadowbrook",
      name: "Meadowbrook",
      bounds: { minX: 0, minZ: 0, maxX: 63, maxZ: 63 },
      biome: "grassland",
      safeZone: true,
      levelRange: { min: 1, max: 5 },
    });
    assert.equal("levelRange" in areas[3], false);
    assert.equal(areas[3].safeZone, true);
  });

  it("needs a token for both", async () => {
    await expectError(await request(server, "/api/v1/world"), 401, "unauthorized");
    await expectError(await request(server, "/api/v1/world/areas"), 401, "unauthorized");
  });
});
