import assert from "node:assert/strict";
import type { PlayerSync } from "../../src/game/world-types.js";
import { type SdkPlayer, sleep, worldSuite } from "../support/players.js";
import {
  becomeAdmin,
  countOf,
  give,
  latestSync,
  seenAt,
  seenEntities,
  seenEntity,
  slotOf,
  syncWhere,
  teleport,
  waitFor,
} from "./world-helpers.js";

const ADMIN_CODE = "skills-admin";

/** Says a line and waits for it to come back: the ticks before the one that took it are all received. */
async function say(player: SdkPlayer, message: string): Promise<void> {
  player.room.send("player:chat", { message });
  await player.inbox.next(
    "chat:message",
    (line) => line.fromPlayerId === player.id && line.message === message,
  );
}

// Meadowbrook's starting area, spawn (32,32): a tree at (25,28), a net fishing spot at (43,32), a
// copper rock at (36,40), all within view of the spawn point. Each test uses its own resource,
// so a depleted one from an earlier test does not matter.
describe("WorldRoom: gathering, firemaking and cooking with real clients", function () {
  this.timeout(60000);
  const { join } = worldSuite({ WORLD_TICK_MS: "50", ADMIN_CODE });

  it("chops a tree until logs arrive, with woodcutting XP, and the tree falls", async () => {
    const player = await join();
    const tree = seenAt(player, "tree", 25, 28);
    assert.equal(tree.depleted, false);
    player.room.send("player:action", { action: "chop", targetId: tree.id });

    const xp = await player.inbox.next("skill:xp", (event) => event.skill === "woodcutting", 20000);
    assert.deepEqual({ gained: xp.gained, xp: xp.xp, level: xp.level }, { gained: 25, xp: 25, level: 1 });
    const sync = await syncWhere(player, (candidate) => countOf(candidate, "logs") === 1);
    assert.equal(sync.skills.woodcutting.xp, 25);
    // A normal tree gives one log and falls: the client sees it depleted.
    await waitFor(() => seenEntity(player, tree.id)?.depleted === true, "the tree is depleted");
    const self = seenEntity(player, player.id)!;
    assert.ok(
      Math.max(Math.abs(self.x - tree.x), Math.abs(self.z - tree.z)) <= 1,
      "chopped from beside the tree",
    );
  });

  it("fishes raw shrimps with fishing XP, and keeps fishing at a spot that never runs out", async () => {
    const player = await join();
    const spot = seenAt(player, "fishing_spot_net", 43, 32);
    player.room.send("player:action", { action: "fish", targetId: spot.id });

    const sync = await syncWhere(player, (candidate) => countOf(candidate, "raw_shrimps") >= 2, 30000);
    assert.ok(sync.skills.fishing.xp >= 20);
    const gains = player.inbox.all("skill:xp").filter((event) => event.skill === "fishing");
    assert.ok(gains.length >= 2);
    assert.ok(gains.every((event) => event.gained === 10));
    assert.equal(seenEntity(player, spot.id)?.depleted, false);
  });

  it("mines copper ore with mining XP", async () => {
    const player = await join();
    const rock = seenAt(player, "copper_rock", 36, 40);
    player.room.send("player:action", { action: "mine", targetId: rock.id });

    const xp = await player.inbox.next("skill:xp", (event) => event.skill === "mining", 20000);
    assert.equal(xp.gained, 17.5);
    const sync = await syncWhere(player, (candidate) => countOf(candidate, "copper_ore") === 1);
    assert.equal(sync.skills.mining.xp, 17.5);
  });

  it("refuses to chop without an axe, naming the missing tool", async () => {
    const player = await join();
    player.room.send("player:action", { action: "drop", inventorySlot: slotOf(player.sync, "bronze_axe") });
    await syncWhere(player, (sync) => countOf(sync, "bronze_axe") === 0);
    player.room.send("player:action", { action: "chop", targetId: seenAt(player, "tree", 24, 35).id });
    const error = await player.inbox.next("error", (event) => event.event === "player:action");
    assert.equal(error.code, "no_tool");
  });

  it("lights a fire with logs and a tinderbox outside town, steps off it, and cooks raw shrimps on it", async () => {
    const player = await join();
    await becomeAdmin(player, ADMIN_CODE);
    await give(player, "logs", 1);
    // As many as the inventory takes beside the logs (19): at a half chance each, all of them burn in
    // one run of 500,000.
    const stocked = await give(player, "raw_shrimps", 19);
    player.room.send("player:action", { action: "light_fire", inventorySlot: slotOf(stocked, "logs") });
    const refused = await player.inbox.next("error", (event) => event.event === "player:action");
    assert.equal(refused.code, "cannot_light_here", "no fires in Meadowbrook, a town");

    // Oakwood, east of the town.
    await teleport(player, 70, 32);
    const { x, z } = seenEntity(player, player.id)!;

    player.room.send("player:action", { action: "light_fire", inventorySlot: slotOf(stocked, "logs") });
    const lit = await player.inbox.next("skill:xp", (event) => event.skill === "firemaking", 20000);
    assert.equal(lit.gained, 40);
    await waitFor(() => seenEntities(player).some((entity) => entity.type === "fire"), "the fire is drawn");
    const fire = seenAt(player, "fire", x, z);
    assert.deepEqual({ x: fire.x, z: fire.z }, { x, z }, "the fire burns where the player stood");
    await waitFor(() => seenEntity(player, player.id)?.x === x - 1, "the player steps west off the fire");
    assert.equal(countOf(latestSync(player), "logs"), 0);

    const raw = slotOf(latestSync(player), "raw_shrimps");
    player.room.send("inventory:use", { inventorySlot: raw, targetId: fire.id });
    const products = (sync: PlayerSync) => countOf(sync, "shrimps") + countOf(sync, "burnt_shrimps");
    const done = await syncWhere(player, (sync) => products(sync) === products(stocked) + 19, 20000);
    assert.equal(countOf(done, "raw_shrimps"), 0, "every raw shrimp was cooked or burnt");
    const cooked = countOf(done, "shrimps") - countOf(stocked, "shrimps");
    assert.ok(cooked > 0, "at cooking level 1 half of them cook on a fire");
    assert.equal(done.skills.cooking.xp, 30 * cooked, "30 XP per cooked shrimp, none for burnt ones");
  });

  it("cooks on the nearest range with player:action cook, and stops on player:action stop", async () => {
    const player = await join();
    await becomeAdmin(player, ADMIN_CODE);
    const stocked = await give(player, "raw_shrimps", 20);
    const products = (sync: PlayerSync) => countOf(sync, "shrimps") + countOf(sync, "burnt_shrimps");
    player.room.send("player:action", { action: "cook", inventorySlot: slotOf(stocked, "raw_shrimps") });
    await syncWhere(player, (sync) => products(sync) > products(stocked), 20000);
    player.room.send("player:action", { action: "stop" });
    // A shrimp already on the range may still come off it in the tick that takes the stop; then nothing
    // more is cooked. A line said after the stop is taken in that tick or a later one, and a second line
    // said once it is heard comes back after every frame of that tick, its player:sync included.
    await say(player, "stopping");
    await say(player, "stopped");
    const stopped = countOf(latestSync(player), "raw_shrimps");
    await sleep(1000);
    assert.equal(countOf(latestSync(player), "raw_shrimps"), stopped, "no cooking after stop");
    assert.ok(stopped > 0 && stopped < 20, `${stopped} raw shrimps left`);
  });
});
