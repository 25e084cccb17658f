import assert from "node:assert/strict";
import { CloseCode } from "@colyseus/core";
import { WorldLease } from "../../src/db/world-lease.js";
import { joinAsNewPlayer, leave } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("WorldRoom replaced by a world opened elsewhere", function () {
  this.timeout(30000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "50" });
  });
  after(() => server?.stop());

  it("saves nothing more and closes, sending its players away to the world that replaced it", async () => {
    const player = await joinAsNewPlayer(server);
    const { characters } = server.runtime;
    const stored = await characters.load(player.id);
    const slot = player.sync.inventory[0]!.slot;

    // What another process does when it opens the world, having taken this one's for dead.
    await WorldLease.claim(server.runtime.database.db);
    const closed = new Promise<number>((resolve) => player.room.onLeave((code) => resolve(code)));
    player.room.send("player:action", { action: "drop", inventorySlot: slot });

    assert.equal(await closed, CloseCode.SERVER_SHUTDOWN);
    assert.deepEqual(
      (await characters.load(player.id))?.inventory,
      stored?.inventory,
      "the drop was not saved",
    );
    assert.deepEqual(await server.runtime.worldStore.loadGround(0), [], "nor its item on the ground");
    await leave(player.room);
  });
});
