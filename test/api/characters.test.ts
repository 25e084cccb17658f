import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

describe("/api/characters/:id (readable by any signed-in account)", () => {
  let server: TestServer;
  let reader: string;
  let someoneElse: string;
  before(async () => {
    server = await startTestServer(GENEROUS_LIMITS);
    reader = (await signInAnonymously(server)).token;
    someoneElse = (await signInAnonymously(server)).playerId;
  });
  after(() => server?.stop());

  it("GET skills gives another player's levels and XP, total level and combat level", async () => {
    const response = await request(server, `/api/characters/${someoneElse}/skills`, { token: reader });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.characterId, someoneElse);
    assert.deepEqual(body.skills.woodcutting, { level: 1, xp: 0 });
    assert.equal(body.skills.constitution.level, 10);
    const levels = Object.values(body.skills as Record<string, { level: number }>).map(
      (skill) => skill.level,
    );
    assert.equal(
      body.totalLevel,
      levels.reduce((sum, level) => sum + level, 0),
    );
    assert.equal(body.combatLevel, 3);
  });

  it("GET position gives the tile, the area it is in and whether the player is online", async () => {
    const response = await request(server, `/api/characters/${someoneElse}/position`, { token: reader });
    assert.equal(response.status, 200);
    const { gameData } = server.runtime;
    const start = gameData.areas.find((area) => area.id === gameData.startingAreaId);
    assert.deepEqual(await response.json(), {
      characterId: someoneElse,
      position: start?.spawnPoint,
      areaId: gameData.startingAreaId,
      online: false,
    });
  });

  for (const part of ["skills", "position"]) {
    it(`GET ${part} is 404 for an unknown id and 401 without a token`, async () => {
      await expectError(
        await request(server, `/api/characters/nobody/${part}`, { token: reader }),
        404,
        "not_found",
      );
      await expectError(await request(server, `/api/characters/${someoneElse}/${part}`), 401, "unauthorized");
    });

    it(`GET ${part} is 404 for an id with a NUL byte, which no stored id can hold`, async () => {
      for (const id of ["%00", `${someoneElse}%00`]) {
        await expectError(
          await request(server, `/api/characters/${id}/${part}`, { token: reader }),
          404,
          "not_found",
        );
      }
    });
  }
});
