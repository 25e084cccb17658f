import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { WorldLease } from "../../src/db/world-lease.js";
import { findWorld, openWorld } from "../../src/rooms/world-listing.js";
import { joinAsNewPlayer, leave, sleep } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("The one world: opened with the server, and again when it is gone", function () {
  this.timeout(30000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "50" });
  });
  after(() => server?.stop());

  it("runs from the server's start, before any player joins", async () => {
    const world = await findWorld();
    assert.ok(world, "the world is listed");
    assert.equal(world.processId, matchMaker.processId);
  });

  it("opens one world when a player's join comes while it is being opened", async () => {
    const running = await findWorld();
    await matchMaker.getLocalRoomById(running!.roomId)!.disconnect();
    assert.equal(await findWorld(), undefined);

    // Opening takes a while (a slow database, say): the join comes meanwhile, finds no world and would
    // make one; it waits for the one being opened instead.
    const claim = WorldLease.claim;
    WorldLease.claim = async (db) => {
      await sleep(300);
      return claim.call(WorldLease, db);
    };
    let opened: Awaited<ReturnType<typeof openWorld>>;
    let player: Awaited<ReturnType<typeof joinAsNewPlayer>>;
    try {
      const opening = openWorld();
      player = await joinAsNewPlayer(server);
      opened = await opening;
    } finally {
      WorldLease.claim = claim;
    }
    assert.equal(player.room.roomId, opened.roomId);
    assert.equal((await matchMaker.query({ name: "world" })).length, 1, "one world");
    await leave(player.room);
  });
});
