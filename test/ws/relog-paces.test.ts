// A client that logs out and in between two paced actions gains nothing: the paces leave with the
// character and the next login waits out what is left of them.
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import type { World } from "../../src/game/world.js";
import { COOK_TICKS } from "../../src/game/world-skills.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, type WsPlayer } from "../support/ws-client.js";

/** Beside the starting town's cooking range, at (34, 26). */
const BY_THE_RANGE = { x: 33, z: 27 };

describe("/ws: paces across a relog", function () {
  this.timeout(60000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "300" });
  });
  after(() => server?.stop());

  const liveWorld = async (): Promise<World> => {
    const [listing] = await matchMaker.query({ name: "world" });
    return (matchMaker.getLocalRoomById(listing!.roomId) as unknown as { world: World }).world;
  };
  const rawLeft = (player: WsPlayer, frames = player.client.frames) =>
    frames
      .filter((frame) => frame.event === "player:sync")
      .at(-1)!
      .data.inventory.filter((entry: { itemId: string }) => entry.itemId === "raw_shrimps");

  it("cooks no faster than once per 4 ticks when the client logs out and in after each cook", async () => {
    const world = await liveWorld();
    let player = await connectPlayer(server);
    const { token, id } = player;
    assert.equal(world.submit(id, { type: "teleport", ...BY_THE_RANGE }), undefined);
    assert.equal(world.submit(id, { type: "give", itemId: "raw_shrimps", quantity: 4 }), undefined);
    await player.client.next("player:sync", (sync) =>
      sync.inventory.some((e: { itemId: string }) => e.itemId === "raw_shrimps"),
    );
    const cookedOnTick: number[] = [];
    for (let round = 0; round < 4; round++) {
      const raw = rawLeft(player);
      player.client.send("player:action", { action: "cook", inventorySlot: raw[0].slot });
      await player.client.next(
        "player:sync",
        (sync) =>
          sync.inventory.filter((e: { itemId: string }) => e.itemId === "raw_shrimps").length ===
          raw.length - 1,
        10000,
      );
      cookedOnTick.push(world.tick);
      await player.client.close();
      player = await connectPlayer(server, undefined, token);
    }
    await player.client.close();
    const gaps = cookedOnTick.slice(1).map((tick, i) => tick - cookedOnTick[i]!);
    // A tick either way for when the test reads the world's tick.
    assert.ok(
      gaps.every((gap) => gap >= COOK_TICKS - 1),
      `cooked on ticks ${cookedOnTick.join(", ")}: one every ${COOK_TICKS} ticks at most`,
    );
  });
});
