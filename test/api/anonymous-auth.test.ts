import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

describe("POST /api/v1/auth/anonymous (anonymous mode)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(GENEROUS_LIMITS);
  });
  after(() => server?.stop());

  it("issues a one-hour token for a new identity whose character can be played at once", async () => {
    const before = Date.now();
    const response = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
    assert.equal(response.status, 201);
    const { token, playerId, expiresAt } = await response.json();
    const lifetime = new Date(expiresAt).getTime() - before;
    assert.ok(lifetime > 59 * 60_000 && lifetime <= 60 * 60_000 + 1000, `lifetime ${lifetime} ms`);
    assert.equal(decodeJwt(token).exp, new Date(expiresAt).getTime() / 1000);

    const player = await request(server, "/api/v1/player", { token });
    assert.equal(player.status, 200);
    assert.equal((await player.json()).id, playerId);
  });

  it("gives every sign-in without a token its own identity", async () => {
    const first = await signInAnonymously(server);
    const second = await signInAnonymously(server);
    assert.notEqual(first.playerId, second.playerId);
  });

  it("renews a still-valid token for the same identity and character", async () => {
    const first = await signInAnonymously(server);
    const renewed = await request(server, "/api/v1/auth/anonymous", { method: "POST", token: first.token });
    assert.equal(renewed.status, 201);
    assert.equal((await renewed.json()).playerId, first.playerId);
  });

  it("refuses to renew a token that is not valid with 401", async () => {
    const { token } = await signInAnonymously(server);
    const tampered = `${token.slice(0, -4)}AAAA`;
    await expectError(
      await request(server, "/api/v1/auth/anonymous", { method: "POST", token: tampered }),
      401,
      "unauthorized",
    );
  });
});
