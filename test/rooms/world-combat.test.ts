import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { matchMaker } from "@colyseus/core";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import type { CombatHit, PlayerSync } from "../../src/game/world-types.js";
import { ANSWER_RESERVE_MS } from "../../src/rooms/trade-commits.js";
import type { WorldRoom } from "../../src/rooms/WorldRoom.js";
import { findWorld } from "../../src/rooms/world-listing.js";
import { joinAsNewPlayer, leave, type SdkPlayer, sleep, worldSuite } from "../support/players.js";
import { recordingLogger } from "../support/recording-logger.js";
import { startTestServer } from "../support/server.js";
import { connectPlayer, type WsPlayer } from "../support/ws-client.js";
import { asTrader, startTrade } from "./trade-helpers.js";
import {
  becomeAdmin,
  countOf,
  give,
  latestSync,
  type SeenEntity,
  seenAt,
  seenEntities,
  seenEntity,
  slotOf,
  syncWhere,
  teleport,
  waitFor,
} from "./world-helpers.js";

const ADMIN_CODE = "combat-admin";
/** Meadowbrook (a safe zone) respawns at (32,32); Blackfen Marsh (not safe) at (132,32). */
const MEADOWBROOK_SPAWN = { x: 32, z: 32 };
const BLACKFEN_SPAWN = { x: 132, z: 32 };
/** A bandit of Blackfen Marsh: aggressive within 5 tiles, hits up to 3. */
const BANDIT_SPAWN = { x: 140, z: 20 };
const FISHING_SPOT = { x: 43, z: 32 };

function hitsOn(player: SdkPlayer, targetId: string): CombatHit[] {
  return player.inbox.all("combat:hit").filter((hit: CombatHit) => hit.targetId === targetId);
}

function killingBlow(player: SdkPlayer, targetId: string, timeoutMs: number): Promise<CombatHit> {
  const test = (hit: CombatHit) => hit.targetId === targetId && hit.targetHealth === 0;
  return player.inbox.next<CombatHit>("combat:hit", test, timeoutMs, true);
}

/**
 * Heals the player (admin /heal) whenever its health is down to 3, until the returned function is
 * called. A level-1 player loses about one fight in 200 to a chicken that fights back: both hit at most
 * 1, about once in four swings at the same speed, and the player needs 3 hits where the chicken needs 10.
 */
function healWhenLow(player: SdkPlayer): () => void {
  const timer = setInterval(() => {
    if (latestSync(player).health <= 3) player.room.send("player:chat", { message: "/heal" });
  }, 100);
  return () => clearInterval(timer);
}

/** Where Oakwood's goblins (not aggressive, 5 hitpoints, hitting at most 1) wander. */
const GOBLINS = { x: 80, z: 25 };

/** Every hit the player dealt or took, as `observer` saw them. */
/** The world's tick as the player's replicated state has it. */
function worldTick(player: SdkPlayer): number {
  return (player.room.state as { tick: number }).tick;
}

function fightOf(observer: SdkPlayer, playerId: string): CombatHit[] {
  return observer.inbox
    .all("combat:hit")
    .filter((hit: CombatHit) => hit.attackerId === playerId || hit.targetId === playerId);
}

/**
 * Attacks the unhurt goblin nearest to GOBLINS and waits for it to strike back: the player is then in
 * combat. Unhurt, because an earlier test's fight may have left one a blow from death, too weak to swing.
 */
async function pickFightWithGoblin(player: SdkPlayer): Promise<void> {
  await becomeAdmin(player, ADMIN_CODE);
  await teleport(player, GOBLINS.x, GOBLINS.z + 2);
  const distance = (entity: SeenEntity) =>
    Math.max(Math.abs(entity.x - GOBLINS.x), Math.abs(entity.z - GOBLINS.z));
  const unhurt = seenEntities(player)
    .filter((entity) => entity.type === "goblin" && entity.health === entity.maxHealth)
    .sort((a, b) => distance(a) - distance(b));
  const goblin = unhurt[0];
  assert.ok(goblin, "an unhurt goblin is in view");
  player.room.send("player:action", { action: "attack", targetId: goblin.id });
  await player.inbox.next<CombatHit>("combat:hit", (hit) => hit.attackerId === goblin.id, 10000);
}

function groundItems(player: SdkPlayer): SeenEntity[] {
  return seenEntities(player).filter((entity) => entity.kind === "item");
}

/** Everything a player carries and wears, as item id → count (a stack counts its quantity). */
function belongings(sync: PlayerSync): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (itemId: string, quantity: number) => counts.set(itemId, (counts.get(itemId) ?? 0) + quantity);
  for (const entry of sync.inventory) add(entry.itemId, entry.quantity);
  for (const itemId of Object.values(sync.equipment)) if (itemId) add(itemId, 1);
  return counts;
}

function tally(items: SeenEntity[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item.type, (counts.get(item.type) ?? 0) + (item.quantity ?? 1));
  return counts;
}

describe("WorldRoom: combat, loot and death with real clients", function () {
  this.timeout(90000);
  const { join } = worldSuite({ WORLD_TICK_MS: "50", ADMIN_CODE });

  it("fights a chicken to its death, the hits seen by the attacker and a bystander, and picks up its loot", async () => {
    const attacker = await join();
    const bystander = await join();
    const chicken = seenAt(attacker, "chicken", MEADOWBROOK_SPAWN.x, MEADOWBROOK_SPAWN.z);
    assert.equal(chicken.health, 3);
    await becomeAdmin(attacker, ADMIN_CODE);
    const stopHealing = healWhenLow(attacker);
    attacker.room.send("player:action", { action: "attack", targetId: chicken.id });

    await killingBlow(attacker, chicken.id, 30000).finally(stopHealing);
    await killingBlow(bystander, chicken.id, 5000);
    const seenByAttacker = hitsOn(attacker, chicken.id);
    assert.ok(seenByAttacker.every((hit) => hit.attackerId === attacker.id));
    // Hit after hit, its health falls by the damage, save a point it may heal meanwhile (a monster heals
    // one every 100 ticks): no hit is missed or seen twice.
    let health = 3;
    for (const hit of seenByAttacker) {
      assert.ok([0, 1].includes(hit.targetHealth - (health - hit.damage)), JSON.stringify(seenByAttacker));
      health = hit.targetHealth;
    }
    assert.deepEqual(hitsOn(bystander, chicken.id), seenByAttacker, "the bystander saw the same hits");
    assert.ok(attacker.inbox.all("skill:xp").some((event) => event.skill === "attack"));
    await waitFor(() => seenEntity(attacker, chicken.id) === undefined, "the dead chicken leaves the view");

    // A chicken always drops bones and raw chicken, seen at first by its killer only.
    await waitFor(() => groundItems(attacker).some((item) => item.type === "bones"), "the bones are drawn");
    const bones = groundItems(attacker).find((item) => item.type === "bones")!;
    assert.ok(groundItems(attacker).some((item) => item.type === "raw_chicken"));
    assert.equal(seenEntity(bystander, bones.id), undefined, "the loot is the killer's for a while");

    attacker.room.send("player:action", { action: "pickup", targetId: bones.id });
    await syncWhere(attacker, (sync) => countOf(sync, "bones") === 1);
    await waitFor(() => seenEntity(attacker, bones.id) === undefined, "the picked-up bones leave the ground");
  });

  it("dies to an aggressive monster outside a safe zone: everything drops and the player respawns at the area's spawn", async () => {
    const player = await join();
    await becomeAdmin(player, ADMIN_CODE);
    player.room.send("inventory:use", { inventorySlot: slotOf(player.sync, "bronze_sword") });
    const equipped = await syncWhere(player, (sync) => sync.equipment.weapon === "bronze_sword");
    const carried = belongings(equipped);

    await teleport(player, BANDIT_SPAWN.x + 2, BANDIT_SPAWN.z + 2);
    await killingBlow(player, player.id, 30000);
    const respawned = await syncWhere(
      player,
      (sync) => sync.health === sync.maxHealth && sync.inventory.length === 0,
    );
    assert.deepEqual(respawned.position, BLACKFEN_SPAWN);
    assert.deepEqual(respawned.equipment, {});
    assert.equal(respawned.coins, 0);

    await waitFor(() => tally(groundItems(player)).get("coins") === 25, "the dropped coins are drawn");
    const dropped = groundItems(player);
    assert.deepEqual(tally(dropped), carried, "everything carried and worn lies on the ground");
    assert.equal(new Set(dropped.map((item) => `${item.x},${item.z}`)).size, 1, "all on the tile of death");
    assert.ok(dropped[0]!.x >= 128, "in Blackfen Marsh, where the player died");
    // Respawned elsewhere, the player is told where what it lost lies, and for how long.
    const notice = player.inbox
      .all("chat:message")
      .find((line) => line.fromPlayerId === "server" && /you are dead/.test(line.message));
    assert.ok(notice, "told of the death");
    assert.match(notice.message, new RegExp(`at \\(${dropped[0]!.x}, ${dropped[0]!.z}\\) in Blackfen Marsh`));
    assert.match(
      notice.message,
      /only you see it for a minute, everyone after that, and it is gone after 3 minutes/,
    );
  });

  it("keeps a player who logs out in a fight in the world, fighting on, until the fight is over", async () => {
    const player = await join();
    const bystander = await join();
    await becomeAdmin(bystander, ADMIN_CODE);
    await teleport(bystander, GOBLINS.x, GOBLINS.z + 8);
    await pickFightWithGoblin(player);
    // The leave is answered at once (the SDK's room.leave() resolves then), the player kept all the same.
    const leaving = performance.now();
    await player.room.leave();
    assert.ok(performance.now() - leaving < 500, "the leave was answered without waiting for the fight");
    // Some ticks on, a player who had simply left would be gone from every view. Counted in the world's
    // ticks, as the fight's end is: a stall of this busy process must not pass for the fight ending.
    const answeredAt = worldTick(bystander);
    await waitFor(() => worldTick(bystander) >= answeredAt + 6, "six ticks on");
    assert.ok(seenEntity(bystander, player.id), "the player is still in the world");
    const fightSoFar = fightOf(bystander, player.id).length;
    await waitFor(() => fightOf(bystander, player.id).length > fightSoFar, "the fight goes on");
    // It ends with the goblin's death (or the player's, or the minute's limit of 100 ticks of 50 ms):
    // 17 ticks later the player leaves.
    await waitFor(() => seenEntity(bystander, player.id) === undefined, "the player leaves at last", 20000);
  });

  it("refuses a trade's swap for a player kept in the world by a fight after it logged out", async () => {
    const player = await join();
    const partner = await join();
    await becomeAdmin(partner, ADMIN_CODE);
    await teleport(partner, GOBLINS.x, GOBLINS.z + 3);
    await pickFightWithGoblin(player);
    const given = await give(player, "coins", 25);
    await player.room.leave();
    // The trade room asks for the swap just as the logout cancels the trade (its cancellation is on the
    // way): the player, still fighting, has no session to have accepted anything.
    const world = (await findWorld())!;
    const offer = [{ inventorySlot: slotOf(given, "coins"), itemId: "coins", quantity: 25 }];
    const outcome = await matchMaker.remoteRoomCall<WorldRoom>(world.roomId, "commitTrade", [
      randomUUID(),
      { characterId: player.id, offer },
      { characterId: partner.id, offer: [] },
      ANSWER_RESERVE_MS + 10_000,
    ]);
    assert.deepEqual(outcome, { ok: false, reason: "player_offline" });
    await sleep(300);
    assert.equal(
      countOf(latestSync(partner), "coins"),
      countOf(partner.sync, "coins"),
      "nothing changed hands",
    );
  });

  it("lets a player who logged out in a fight log in again and play on once the fight is over", async () => {
    const player = await join();
    await pickFightWithGoblin(player);
    await leave(player.room);
    const again = await join(player.token);
    assert.equal(again.id, player.id);
    await becomeAdmin(again, ADMIN_CODE);
    await teleport(again, MEADOWBROOK_SPAWN.x, MEADOWBROOK_SPAWN.z);
    // Past the end of the fight the first session left in (17 ticks) and the minute's limit (100 ticks):
    // its departure must not take the player of the new session out of the world.
    await sleep(6000);
    again.room.send("player:move", { x: MEADOWBROOK_SPAWN.x, z: MEADOWBROOK_SPAWN.z + 2 });
    await waitFor(
      () => seenEntity(again, again.id)?.z === MEADOWBROOK_SPAWN.z + 2,
      "the new session plays on",
    );
  });

  it("dies in a safe zone: keeps the 3 most valuable items and drops the rest", async () => {
    const player = await join();
    await becomeAdmin(player, ADMIN_CODE);
    await give(player, "steel_sword", 1);
    const armed = await give(player, "iron_sword", 1);
    const carried = belongings(armed);

    // Chickens hit for at most 1, so it takes all three, and a player who does not strike back:
    // hit each once (so it fights back), then go fishing while they peck.
    const chickensInView = () => seenEntities(player).filter((entity) => entity.type === "chicken");
    await waitFor(() => chickensInView().length === 3, "all three chickens are alive");
    const chickens = chickensInView();
    for (const chicken of chickens) {
      player.room.send("player:action", { action: "attack", targetId: chicken.id });
      await player.inbox.next(
        "combat:hit",
        (hit) => hit.attackerId === player.id && hit.targetId === chicken.id,
        20000,
      );
    }
    const spot = seenAt(player, "fishing_spot_net", FISHING_SPOT.x, FISHING_SPOT.z);
    player.room.send("player:action", { action: "fish", targetId: spot.id });
    // Catches are thrown back so the inventory never fills (a full one would end the fishing).
    const throwBack = setInterval(() => {
      const sync = latestSync(player);
      if (countOf(sync, "raw_shrimps") > 0) {
        player.room.send("player:action", { action: "drop", inventorySlot: slotOf(sync, "raw_shrimps") });
      }
    }, 100);
    try {
      await killingBlow(player, player.id, 60000);
    } finally {
      clearInterval(throwBack);
    }

    const respawned = await syncWhere(
      player,
      (sync) => sync.health === sync.maxHealth && sync.inventory.length === 3,
    );
    assert.deepEqual(respawned.position, MEADOWBROOK_SPAWN);
    assert.deepEqual(
      respawned.inventory.map((entry) => entry.itemId).sort(),
      ["bronze_sword", "iron_sword", "steel_sword"],
      "the three most valuable: 260, 78 and 26 coins",
    );
    assert.deepEqual(
      respawned.inventory.map((entry) => entry.slot),
      armed.inventory.filter((entry) => entry.itemId.endsWith("_sword")).map((entry) => entry.slot),
      "kept in the slots they were in",
    );

    await waitFor(() => tally(groundItems(player)).get("coins") === 25, "the dropped coins are drawn");
    // Loot of earlier kills nearby may have turned public meanwhile: count only the tile of death.
    const coins = groundItems(player).find((item) => item.type === "coins")!;
    const onDeathTile = groundItems(player).filter((item) => item.x === coins.x && item.z === coins.z);
    const dropped = tally(onDeathTile.filter((item) => item.type !== "raw_shrimps"));
    for (const kept of ["bronze_sword", "iron_sword", "steel_sword"]) carried.delete(kept);
    assert.deepEqual(dropped, carried, "the rest lies on the ground");
  });

  it("cancels a dead player's trade at once, for both players", async () => {
    const alice = asTrader(await join());
    const bob = asTrader(await join());
    const tradeId = await startTrade(alice, bob);
    await becomeAdmin(alice, ADMIN_CODE);
    await teleport(alice, BANDIT_SPAWN.x + 2, BANDIT_SPAWN.z + 2);
    await killingBlow(alice, alice.id, 30000);
    for (const trader of [alice, bob]) {
      const cancelled = await trader.tradeInbox.next("tradeCancelled", () => true, 5000, true);
      assert.deepEqual(cancelled, { tradeId, reason: "player_died" });
    }
    await Promise.all([leave(alice.trade), leave(bob.trade)]);
  });
});

describe("WorldRoom: shutting down while a player who logged out in a fight is still in the world", function () {
  this.timeout(30000);

  it("lets that player go at once, and logs no error", async () => {
    const { logger, lines } = recordingLogger("warn");
    // 600 ms ticks: a player who logs out in a fight stays at least 17 of them, over 10 s.
    const server = await startTestServer({ ADMIN_CODE }, { logger });
    const player = await joinAsNewPlayer(server);
    await pickFightWithGoblin(player);
    await leave(player.room);
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const get = async (path: string) =>
      (await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();
    const status = (await get("/api/v1/world")) as { playersOnline: number; entities: { players: number } };
    assert.deepEqual(
      [status.playersOnline, status.entities.players],
      [0, 1],
      "in the world, with no session",
    );
    const position = (await get(`/api/characters/${player.id}/position`)) as { online: boolean };
    assert.equal(position.online, true, "the character endpoints show it online, where it stands");

    const stopping = performance.now();
    await server.stop();
    assert.ok(performance.now() - stopping < 5000, "the shutdown did not wait for the fight to end");
    assert.deepEqual(
      lines.filter((line) => line.level >= 50).map((line) => line.msg),
      [],
    );
  });
});

describe("WorldRoom: a full world and a player who logged out in a fight (WORLD_CAPACITY=1)", function () {
  this.timeout(30000);

  it("takes the player back to its character, still fighting, and nobody else", async () => {
    // 600 ms ticks: the goblin's fight lasts over 10 s.
    const server = await startTestServer({ ADMIN_CODE, WORLD_CAPACITY: "1" });
    const players: SdkPlayer[] = [];
    let back: WsPlayer | undefined;
    try {
      const alice = await joinAsNewPlayer(server);
      await pickFightWithGoblin(alice);
      await leave(alice.room);
      // Her session is gone, her seat with it: the world takes Bob, and is full.
      players.push(await joinAsNewPlayer(server));
      await assert.rejects(joinAsNewPlayer(server), /every world is full/);
      back = await connectPlayer(server, undefined, alice.token);
      assert.equal(back.id, alice.id, "alice back in the world her character fights in");
      const { x, z } = back.sync.position;
      assert.ok(Math.max(Math.abs(x - GOBLINS.x), Math.abs(z - GOBLINS.z)) <= 5, "where she fights");
    } finally {
      await back?.client.close();
      await Promise.all(players.map((player) => leave(player.room)));
      await server.stop();
    }
  });
});
