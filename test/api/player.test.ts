import assert from "node:assert/strict";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { sleep } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer } from "../support/ws-client.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

describe("/api/v1/player", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(GENEROUS_LIMITS);
  });
  after(() => server?.stop());

  /** A valid token of an identity the server has not seen: its account has no character yet. */
  const freshToken = async () => (await issueAnonymousToken(server.runtime.jwtSecret)).token;

  describe("GET", () => {
    it("returns the player:sync object of the caller's character: spawn point, starter kit, coins", async () => {
      const { token, playerId } = await signInAnonymously(server);
      const response = await request(server, "/api/v1/player", { token });
      assert.equal(response.status, 200);
      const player = await response.json();
      assert.equal(player.id, playerId);
      // The spawn point of the first area of manifests/world-areas.json, meadowbrook
      assert.deepEqual(player.position, { x: 32, z: 32 });
      assert.equal(player.health, player.maxHealth);
      assert.deepEqual(player.skills.attack, { level: 1, xp: 0 });
      const carried = new Map<string, number>();
      for (const { itemId, quantity } of player.inventory as { itemId: string; quantity: number }[]) {
        carried.set(itemId, (carried.get(itemId) ?? 0) + quantity);
      }
      // manifests/starter-kit.json
      assert.deepEqual(
        carried,
        new Map([
          ["bronze_axe", 1],
          ["bronze_pickaxe", 1],
          ["small_fishing_net", 1],
          ["tinderbox", 1],
          ["bronze_sword", 1],
          ["shrimps", 2],
          ["coins", 25],
        ]),
      );
      assert.equal(player.coins, 25);
      assert.deepEqual(player.equipment, {});
    });

    it("is 404 for an account without a character, and 401 without a token", async () => {
      await expectError(
        await request(server, "/api/v1/player", { token: await freshToken() }),
        404,
        "not_found",
      );
      await expectError(await request(server, "/api/v1/player"), 401, "unauthorized");
    });
  });

  describe("POST while the character is loaded for a login", () => {
    it("shows the new name to the player who logs in", async () => {
      const { token } = await signInAnonymously(server);
      // The login's load of the character is slowed, as a loaded database would: the rename comes in it.
      const characters = server.runtime.characters as any;
      const load = characters.load;
      let loading!: () => void;
      const loadStarted = new Promise<void>((resolve) => (loading = resolve));
      characters.load = async (...args: unknown[]) => {
        const loaded = await load.apply(characters, args);
        loading();
        await sleep(500);
        return loaded;
      };
      try {
        const login = connectPlayer(server, undefined, token);
        await loadStarted;
        const renamed = await request(server, "/api/v1/player", { token, body: { name: "Late Renamer" } });
        assert.equal(renamed.status, 200);
        const player = await login;
        const named = async () =>
          (
            await player.client.received(
              (frame) =>
                frame.event === "world:update" && frame.data.added?.some((e: any) => e.id === player.id),
            )
          ).data.added.find((e: any) => e.id === player.id).name;
        assert.deepEqual([player.sync.name, await named()], ["Late Renamer", "Late Renamer"]);
        await player.client.close();
      } finally {
        characters.load = load;
      }
    });
  });

  describe("POST", () => {
    it("creates the account's character with 201, then renames it with 200", async () => {
      const token = await freshToken();
      const created = await request(server, "/api/v1/player", { token, body: { name: "Brave Knight" } });
      assert.equal(created.status, 201);
      const player = await created.json();
      assert.equal(player.name, "Brave Knight");

      const renamed = await request(server, "/api/v1/player", { token, body: { name: "Bold Knight" } });
      assert.equal(renamed.status, 200);
      assert.deepEqual(await renamed.json(), { ...player, name: "Bold Knight" });
      assert.equal((await (await request(server, "/api/v1/player", { token })).json()).name, "Bold Knight");
    });

    it("is 409 for a name another character has, in any case", async () => {
      const owner = await signInAnonymously(server);
      await request(server, "/api/v1/player", { token: owner.token, body: { name: "Taken Name" } });
      const { token } = await signInAnonymously(server);
      await expectError(
        await request(server, "/api/v1/player", { token, body: { name: "taken NAME" } }),
        409,
        "conflict",
      );
    });

    it("is 409 for the name server notices speak under, in any case, for a new character and a rename", async () => {
      await expectError(
        await request(server, "/api/v1/player", { token: await freshToken(), body: { name: "Server" } }),
        409,
        "conflict",
      );
      const { token } = await signInAnonymously(server);
      await expectError(
        await request(server, "/api/v1/player", { token, body: { name: "SERVER" } }),
        409,
        "conflict",
      );
    });

    it("is 400 with the field in details for names outside 3..12 letters, digits and spaces", async () => {
      const { token } = await signInAnonymously(server);
      for (const name of ["ab", "thirteen char", "bad_name", " padded", 42]) {
        const error = await expectError(
          await request(server, "/api/v1/player", { token, body: { name } }),
          400,
          "bad_request",
        );
        assert.deepEqual(
          (error.details as { field: string }[]).map((detail) => detail.field),
          ["name"],
        );
      }
    });

    it("is 400 for a name with a run of spaces: `Mod  Bob` cannot pass for `Mod Bob`", async () => {
      const first = await signInAnonymously(server);
      const named = await request(server, "/api/v1/player", {
        token: first.token,
        body: { name: "Mod Bob" },
      });
      assert.equal(named.status, 200);
      const { token } = await signInAnonymously(server);
      for (const name of ["Mod  Bob", "Mod   Bob", "A  b"]) {
        const error = await expectError(
          await request(server, "/api/v1/player", { token, body: { name } }),
          400,
          "bad_request",
        );
        assert.match(error.details?.[0]?.message ?? "", /single spaces/);
      }
    });

    it("is 400 for malformed JSON, 413 for an oversized body, 401 without a token", async () => {
      const { token } = await signInAnonymously(server);
      await expectError(
        await request(server, "/api/v1/player", { token, body: '{"name": "Broken' }),
        400,
        "bad_request",
      );
      await expectError(
        await request(server, "/api/v1/player", {
          token,
          body: { name: "Big", padding: "x".repeat(20_000) },
        }),
        413,
        "payload_too_large",
      );
      await expectError(
        await request(server, "/api/v1/player", { body: { name: "Nobody" } }),
        401,
        "unauthorized",
      );
    });
  });
});
