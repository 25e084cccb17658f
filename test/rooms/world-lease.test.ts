import assert from "node:assert/strict";
import { CloseCode } from "@colyseus/core";
import { WorldLease } from "../../src/db/world-lease.js";
import { joinAsNewPlayer, leave } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("WorldRoom replaced by a world opened elsewhere", function () {
  this.timeout(30000);
  let server: TestServer;
  // A server each: the replaced world closes for good.
  beforeEach(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "50" });
  });
  afterEach(() => server?.stop());

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

  it("finds out within seconds when nothing in it writes, and closes as well", async () => {
    const player = await joinAsNewPlayer(server);
    const closed = new Promise<number>((resolve) => player.room.onLeave((code) => resolve(code)));
    await WorldLease.claim(server.runtime.database.db);
    const started = Date.now();
    assert.equal(await closed, CloseCode.SERVER_SHUTDOWN);
    assert.ok(Date.now() - started < 7000, "within one check of the lease (5 s)");
    await leave(player.room);
  });
});
