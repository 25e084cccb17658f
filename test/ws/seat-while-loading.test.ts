// a player's own second login while its first is still loading its character, in a full world.
import assert from "node:assert/strict";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { sleep, waitForAsync } from "../support/players.js";
import { listWorlds, startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, refusedUpgrade, WsClient } from "../support/ws-client.js";

// Full, the world counts the loading login's seat already; with a seat to spare, as a control.
for (const [capacity, why] of [
  ["1", "full"],
  ["2", "a seat to spare"],
] as const) {
  describe(`a second login of a character still loading (WORLD_CAPACITY=${capacity}: ${why})`, function () {
    this.timeout(30000);
    let server: TestServer;

    before(async () => {
      server = await startTestServer({ WORLDS: "1", WORLD_CAPACITY: capacity, WORLD_TICK_MS: "100" });
    });
    after(() => server?.stop());

    it("takes the player's second login over its own seat, as it does in a world with room", async () => {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      // Create the character first, then log out.
      const made = await connectPlayer(server, 1, token);
      await made.client.close();
      await waitForAsync(async () => (await listWorlds(server))[0]?.playersOnline === 0, "world empty");
      // The character's load takes 1.5 s (a slow database).
      const characters = server.runtime.characters as any;
      const load = characters.load;
      characters.load = async (...args: unknown[]) => {
        await sleep(1500);
        return load.apply(characters, args);
      };
      const first = await WsClient.connect(`${server.wsUrl}?world=1`, { header: token });
      try {
        await sleep(500);
        // The first connection is lost while its character loads; the player logs in again at once.
        first.socket.terminate();
        const second = await WsClient.connect(`${server.wsUrl}?world=1`, { header: token }).catch(async () =>
          refusedUpgrade(`${server.wsUrl}?world=1`, { header: token }),
        );
        assert.ok(second instanceof WsClient, `refused: ${JSON.stringify(second)}`);
        const sync = await second.first();
        assert.equal(sync.event, "player:sync");
        assert.equal(sync.data.id, made.id);
        await second.close();
      } finally {
        characters.load = load;
      }
    });
  });
}
