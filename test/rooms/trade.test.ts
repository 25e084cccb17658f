import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { matchMaker } from "@colyseus/core";
import { Client } from "@colyseus/sdk";
import { TradeRepository } from "../../src/db/trades.js";
import type { TradeOffer } from "../../src/game/trade.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import { WriterThread } from "../../src/net/writer-thread.js";
import { roomLiveWorld } from "../../src/rooms/live-world.js";
import { ANSWER_RESERVE_MS } from "../../src/rooms/trade-commits.js";
import type { WorldRoom } from "../../src/rooms/WorldRoom.js";
import { findWorld } from "../../src/rooms/world-listing.js";
import { GENEROUS_LIMITS } from "../api/support.js";
import { joinAsNewPlayer, leave, sleep, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { interceptWorldWrites } from "../support/world-writes.js";
import { asTrader, startTrade, type Trader } from "./trade-helpers.js";
import {
  becomeAdmin,
  countOf,
  give,
  latestSync,
  storedCount,
  storedGroundOf,
  syncWhere,
  teleport,
  waitFor,
} from "./world-helpers.js";

const ADMIN_CODE = "trade-admin";

const slotOf = (trader: Trader, itemId: string) =>
  trader.sync.inventory.find((e) => e.itemId === itemId)!.slot;

/**
 * Asks the world to swap `a`'s offer for `b`'s, as a trade room does after both final accepts, saying
 * it waits `answerWithinMs` for the answer.
 */
const commit = async (
  a: Trader,
  b: Trader,
  offerOfA: TradeOffer[] = [],
  answerWithinMs = ANSWER_RESERVE_MS + 10_000,
) =>
  matchMaker.remoteRoomCall<WorldRoom>(
    (await findWorld())!.roomId,
    "commitTrade",
    [randomUUID(), { characterId: a.id, offer: offerOfA }, { characterId: b.id, offer: [] }, answerWithinMs],
    answerWithinMs,
  );
/**
 * Makes the world answer the trade room's check of the offers, at an accept, with the inventories as they
 * are now, whatever happens to them next: as when a drop lands between the last accept's check and the
 * swap, which then re-checks them itself. Gives back the way to undo it.
 */
async function holdInventoryCheck(...traders: Trader[]): Promise<() => void> {
  const world = matchMaker.getLocalRoomById((await findWorld())!.roomId) as WorldRoom;
  const inventoryOf = world.inventoryOf;
  const held = new Map(traders.map(({ id }) => [id, inventoryOf.call(world, id)]));
  world.inventoryOf = (playerId) =>
    held.has(playerId) ? held.get(playerId) : inventoryOf.call(world, playerId);
  return () => {
    world.inventoryOf = inventoryOf;
  };
}
const fiveCoinsOf = (trader: Trader): TradeOffer[] => [
  { inventorySlot: slotOf(trader, "coins"), itemId: "coins", quantity: 5 },
];

describe("TradeRoom with SDK clients", function () {
  this.timeout(30000);
  let server: TestServer;
  const traders: Trader[] = [];

  const join = async (): Promise<Trader> => {
    const trader = asTrader(await joinAsNewPlayer(server));
    traders.push(trader);
    return trader;
  };

  before(async () => {
    // Some 70 players join within a minute from one address, with several requests each: more than the
    // default REST limit lets through.
    server = await startTestServer({ WORLD_TICK_MS: "100", ADMIN_CODE, ...GENEROUS_LIMITS });
  });
  afterEach(async () => {
    await Promise.all(traders.splice(0).flatMap((trader) => [leave(trader.trade), leave(trader.room)]));
  });
  after(() => server?.stop());

  it("swaps both offers in one transaction after two rounds of accepts", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);

    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 10 });
    const afterAdd = await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    assert.deepEqual(afterAdd.theirOffer, [
      { inventorySlot: slotOf(alice, "coins"), itemId: "coins", quantity: 10 },
    ]);
    bob.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(bob, "bronze_axe"), quantity: 1 });
    await alice.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);

    alice.trade!.send("tradeAccept", { tradeId });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirAccepted === true);
    bob.trade!.send("tradeAccept", { tradeId });
    const confirm = await alice.tradeInbox.next("tradeConfirmScreen");
    assert.equal(confirm.values.mine, 10, "10 coins at value 1");
    assert.ok(confirm.values.theirs > 0, "the axe has a value");

    // The room is left as ended, not dropped: the SDK would otherwise try to reconnect to it.
    let dropped = false;
    alice.trade!.onDrop(() => {
      dropped = true;
    });
    const aliceLeft = new Promise<number>((resolve) => alice.trade!.onLeave(resolve));
    alice.trade!.send("tradeAccept", { tradeId });
    bob.trade!.send("tradeAccept", { tradeId });
    const [aliceDone, bobDone] = await Promise.all([
      alice.tradeInbox.next("tradeCompleted", () => true, 5000, true),
      bob.tradeInbox.next("tradeCompleted", () => true, 5000, true),
    ]);
    assert.deepEqual(aliceDone.receivedItems, [{ itemId: "bronze_axe", quantity: 1 }]);
    assert.deepEqual(bobDone.receivedItems, [{ itemId: "coins", quantity: 10 }]);
    assert.equal(await aliceLeft, 4000, "left as consented");
    assert.equal(dropped, false);

    const aliceSync = await alice.inbox.next("player:sync", (s) => s.coins === 15, 5000, true);
    assert.equal(aliceSync.inventory.filter((e: any) => e.itemId === "bronze_axe").length, 2);
    const bobSync = await bob.inbox.next("player:sync", (s) => s.coins === 35, 5000, true);
    assert.equal(
      bobSync.inventory.some((e: any) => e.itemId === "bronze_axe"),
      false,
    );

    const stored = await server.runtime.characters.load(bob.id);
    assert.equal(stored?.inventory.find((e) => e.itemId === "coins")?.quantity, 35);
  });

  it("tells a player who joins the room again after the end how the trade ended, not a trade under way", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 3 });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    for (let round = 0; round < 2; round++) {
      alice.trade!.send("tradeAccept", { tradeId });
      bob.trade!.send("tradeAccept", { tradeId });
      if (round === 0) await alice.tradeInbox.next("tradeConfirmScreen");
    }
    const done = await bob.tradeInbox.next("tradeCompleted", () => true, 5000, true);
    // Past the room's expiry checks (every second), within the 10 s it stays open after the end.
    await sleep(2500);
    const again = await bob.sdk.joinById(tradeId);
    const first = new Promise<{ type: string; data: unknown }>((resolve) =>
      again.onMessage("*", (type, data) => resolve({ type: String(type), data })),
    );
    assert.deepEqual(await first, { type: "tradeCompleted", data: done });
    await leave(again);
  });

  it("gives each player one seat in its trade's room, so a second client cannot lock the partner out", async () => {
    const [alice, bob] = [await join(), await join()];
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const incoming = await bob.inbox.next("tradeIncoming");
    bob.room.send("tradeRequestRespond", { tradeId: incoming.tradeId, accept: true });
    const { tradeId } = await alice.inbox.next("tradeStarted", () => true, 5000, true);
    alice.trade = await alice.sdk.joinById(tradeId);
    // Alice's token on a second client of hers: refused, and the trade goes on.
    const second = new Client(server.baseUrl);
    second.auth.token = alice.token;
    await assert.rejects(second.joinById(tradeId), /in the trade's room already/);
    bob.trade = await bob.sdk.joinById(tradeId);
    bob.trade.onMessage("*", (event, data) => bob.tradeInbox.push(String(event), data));
    const view = await bob.tradeInbox.next("tradeUpdated", () => true, 5000, true);
    assert.equal(view.tradeId, tradeId);
  });

  it("takes offered items back with tradeRemoveItem, and clears both accepts on any change", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    const coinsSlot = slotOf(alice, "coins");
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: coinsSlot, quantity: 10 });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer[0]?.quantity === 10);
    bob.trade!.send("tradeAccept", { tradeId });
    await alice.tradeInbox.next("tradeUpdated", (u) => u.theirAccepted);
    alice.trade!.send("tradeRemoveItem", { tradeId, inventorySlot: coinsSlot, quantity: 4 });
    const reduced = await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer[0]?.quantity === 6);
    assert.equal(reduced.myAccepted, false, "bob's accept was cleared by alice's change");
    alice.trade!.send("tradeRemoveItem", { tradeId, inventorySlot: coinsSlot });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 0);
  });

  it("refuses requests to oneself and to players who are not online", async () => {
    const alice = await join();
    alice.room.send("tradeRequest", { targetPlayerId: alice.id });
    assert.equal((await alice.inbox.next("tradeError")).reason, "self_trade");
    alice.room.send("tradeRequest", { targetPlayerId: "nobody" });
    assert.equal((await alice.inbox.next("tradeError")).reason, "player_offline");
  });

  it("tells both sides when the request is declined", async () => {
    const [alice, bob] = [await join(), await join()];
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const incoming = await bob.inbox.next("tradeIncoming");
    bob.room.send("tradeRequestRespond", { tradeId: incoming.tradeId, accept: false });
    assert.equal((await alice.inbox.next("tradeCancelled")).reason, "declined");
  });

  it("lets the requester cancel a pending request in the world room, with the tradeId tradeRequestSent gave", async () => {
    const [alice, bob] = [await join(), await join()];
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const sent = await alice.inbox.next("tradeRequestSent", () => true, 5000, true);
    const incoming = await bob.inbox.next("tradeIncoming", () => true, 5000, true);
    assert.deepEqual(sent, {
      tradeId: incoming.tradeId,
      targetPlayerId: bob.id,
      targetPlayerName: bob.sync.name,
    });
    alice.room.send("tradeCancel", { tradeId: sent.tradeId });
    for (const me of [alice, bob]) {
      assert.deepEqual(await me.inbox.next("tradeCancelled", () => true, 5000, true), {
        tradeId: sent.tradeId,
        reason: "cancelled",
      });
    }
    bob.room.send("tradeRequestRespond", { tradeId: sent.tradeId, accept: true });
    assert.equal((await bob.inbox.next("tradeError")).reason, "not_found");
  });

  it("takes the requested player's tradeCancel of a pending request as a decline", async () => {
    const [alice, bob] = [await join(), await join()];
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const { tradeId } = await bob.inbox.next("tradeIncoming");
    bob.room.send("tradeCancel", { tradeId });
    for (const me of [alice, bob]) {
      assert.deepEqual(await me.inbox.next("tradeCancelled", () => true, 5000, true), {
        tradeId,
        reason: "declined",
      });
    }
  });

  it("cancels a started trade on a tradeCancel sent to the world room too", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    alice.room.send("tradeCancel", { tradeId });
    for (const me of [alice, bob]) {
      assert.deepEqual(await me.tradeInbox.next("tradeCancelled", () => true, 5000, true), {
        tradeId,
        reason: "cancelled",
      });
    }
  });

  it("answers a client flooding the trade's room with rate_limited", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    for (let i = 0; i < 70; i++) alice.trade!.send("tradeAccept", { tradeId });
    const error = await alice.tradeInbox.next("error", (e) => e.code === "rate_limited");
    assert.equal(error.event, "tradeAccept");
  });

  it("counts a player's trade messages and world messages against one limit", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    for (let i = 0; i < 40; i++) alice.room.send("noSuchEvent", { i });
    const unknown = () => alice.inbox.all("error").filter((e) => e.code === "unknown_event").length;
    await alice.inbox.next("error", () => unknown() === 40);
    for (let i = 0; i < 25; i++) alice.trade!.send("tradeAccept", { tradeId });
    const error = await alice.tradeInbox.next("error", (e) => e.code === "rate_limited");
    assert.equal(error.event, "tradeAccept");
    assert.ok(!alice.inbox.all("error").some((e) => e.code === "rate_limited"), "the world took its 40");
  });

  it("refuses a second trade while one is open, and cancels for both on tradeCancel", async () => {
    const [alice, bob, carol] = [await join(), await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    carol.room.send("tradeRequest", { targetPlayerId: alice.id });
    assert.equal((await carol.inbox.next("tradeError")).reason, "already_trading");
    bob.trade!.send("tradeCancel", { tradeId });
    assert.deepEqual(await alice.tradeInbox.next("tradeCancelled"), { tradeId, reason: "cancelled" });
    assert.equal((await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true)).reason, "cancelled");
  });

  it("cancels at once when a player drops, and moves nothing", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 25 });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    // Its world connection drops; its trade's stays open, and is told why the trade ended.
    bob.room.connection.close();
    const cancelled = await alice.tradeInbox.next("tradeCancelled");
    assert.equal(cancelled.reason, "partner_disconnected");
    assert.deepEqual(await bob.tradeInbox.next("tradeCancelled"), { tradeId, reason: "disconnected" });
    assert.equal(
      (await server.runtime.characters.load(alice.id))?.inventory.find((e) => e.itemId === "coins")?.quantity,
      25,
    );
  });

  it("ends a started trade that one player never joins, for both, 15 s on, and moves nothing", async function () {
    this.timeout(30000);
    const [alice, bob] = [await join(), await join()];
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const { tradeId } = await bob.inbox.next("tradeIncoming");
    bob.room.send("tradeRequestRespond", { tradeId, accept: true });
    await alice.inbox.next("tradeStarted", (s) => s.tradeId === tradeId, 5000, true);
    await bob.inbox.next("tradeStarted", (s) => s.tradeId === tradeId, 5000, true);
    // Alice joins and offers; Bob's client never comes to the trade's room.
    alice.trade = await alice.sdk.joinById(tradeId);
    alice.trade.onMessage("*", (event, data) => alice.tradeInbox.push(String(event), data));
    alice.trade.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 10 });
    await alice.tradeInbox.next("tradeUpdated", (u) => u.myOffer.length === 1);
    const started = Date.now();
    assert.deepEqual(await alice.tradeInbox.next("tradeCancelled", () => true, 20000), {
      tradeId,
      reason: "expired",
    });
    assert.ok(Date.now() - started > 10_000, "not before the deadline");
    // Bob is told on his world connection, possibly before Alice's answer is read here.
    assert.deepEqual(await bob.inbox.next("tradeCancelled", (c) => c.tradeId === tradeId, 5000, true), {
      tradeId,
      reason: "expired",
    });
    // Both may trade again at once, with what they had.
    const again = await startTrade(alice, bob);
    assert.ok(again && again !== tradeId);
    assert.equal(countOf(latestSync(alice), "coins"), countOf(alice.sync, "coins"));
  });

  it("cancels at once when a player logs in again elsewhere, so the replaced session cannot finish it", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 25 });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    const bobAgain = asTrader(await joinAsNewPlayer(server, bob.token));
    traders.push(bobAgain);
    const cancelled = await alice.tradeInbox.next("tradeCancelled", () => true, 5000, true);
    assert.deepEqual(cancelled, { tradeId, reason: "partner_disconnected" });
    assert.deepEqual(await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true), {
      tradeId,
      reason: "disconnected",
    });
    // The replaced session's connection to the trade accepts in vain: the trade is over.
    for (const me of [alice, bob, alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    await sleep(500);
    assert.equal(bob.tradeInbox.all("tradeCompleted").length, 0);
    assert.equal(countOf(latestSync(bobAgain), "coins"), 25);
    assert.equal(await storedCount(server, alice.id, "coins"), 25);
  });

  it("takes an offered item dropped in the meantime out of the offer at the next accept, moving nothing", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    const coinsSlot = slotOf(alice, "coins");
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: coinsSlot, quantity: 25 });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    await alice.tradeInbox.next("tradeConfirmScreen");
    alice.room.send("player:action", { action: "drop", inventorySlot: coinsSlot });
    await alice.inbox.next("player:sync", (s) => s.coins === 0);
    bob.trade!.send("tradeAccept", { tradeId });
    assert.deepEqual(
      (await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 0)).theirOffer,
      [],
    );
    assert.equal((await bob.tradeInbox.next("tradeError", () => true, 5000, true)).reason, "offer_changed");
    assert.equal((await alice.tradeInbox.next("tradeError", () => true, 5000, true)).reason, "offer_changed");
    bob.trade!.send("tradeCancel", { tradeId });
    assert.equal((await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true)).reason, "cancelled");
    const stored = await server.runtime.characters.load(bob.id);
    assert.equal(stored?.inventory.find((e) => e.itemId === "coins")?.quantity, 25, "bob received nothing");
  });

  it("fails the commit and cancels when an offered item was dropped after the last accept's check", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    const coinsSlot = slotOf(alice, "coins");
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: coinsSlot, quantity: 25 });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    await alice.tradeInbox.next("tradeConfirmScreen");
    const restoreCheck = await holdInventoryCheck(alice, bob);
    try {
      alice.room.send("player:action", { action: "drop", inventorySlot: coinsSlot });
      await alice.inbox.next("player:sync", (s) => s.coins === 0);
      for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
      const error = await bob.tradeInbox.next("tradeError");
      assert.equal(error.reason, "insufficient_items");
    } finally {
      restoreCheck();
    }
    assert.equal(
      (await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true)).reason,
      "commit_failed",
    );
    const stored = await server.runtime.characters.load(bob.id);
    assert.equal(stored?.inventory.find((e) => e.itemId === "coins")?.quantity, 25, "bob received nothing");
  });

  it("moves nothing while the database lags behind the world, so a dropped offer is not duplicated", async () => {
    const [alice, bob] = [await join(), await join()];
    const bobCoins = countOf(bob.sync, "coins");
    const tradeId = await startTrade(alice, bob);
    const coinsSlot = slotOf(alice, "coins");
    const offered = countOf(alice.sync, "coins");
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: coinsSlot, quantity: offered });
    await bob.tradeInbox.next("tradeUpdated", (update) => update.theirOffer.length === 1);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    await alice.tradeInbox.next("tradeConfirmScreen");

    // The database stops taking the world's writes: alice's drop stays in the world only, and the world
    // waits for its database.
    const { worldStore } = server.runtime;
    let failed = 0;
    const restoreWrites = interceptWorldWrites(worldStore, async () => {
      failed++;
      throw new Error("database unavailable");
    });
    const restoreCheck = await holdInventoryCheck(alice, bob);
    try {
      alice.room.send("player:action", { action: "drop", inventorySlot: coinsSlot });
      await waitFor(() => failed > 0, "the drop's write failed");
      for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
      const cancelled = await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true);
      assert.equal(cancelled.reason, "commit_failed");
      assert.equal(alice.tradeInbox.last("tradeCompleted"), undefined);
    } finally {
      restoreCheck();
      restoreWrites();
    }

    // Once the database is back, the world is written as it is: the coins lie on the ground, and only there.
    const storedCoins = (id: string) => storedCount(server, id, "coins");
    await waitForAsync(async () => (await storedCoins(alice.id)) === 0, "alice's drop written");
    assert.equal(await storedCoins(bob.id), bobCoins, "bob received nothing");
    assert.equal(countOf(latestSync(bob), "coins"), bobCoins);
    assert.deepEqual(await storedGroundOf(server, alice.id), [["coins", offered]]);
  });

  it("sends a tick held for the database before the trade that followed it completes", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    const coins = countOf(alice.sync, "coins");
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: coins });
    await bob.tradeInbox.next("tradeUpdated", (update) => update.theirOffer.length === 1);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    await alice.tradeInbox.next("tradeConfirmScreen");
    const seen: string[] = [];
    alice.room.onMessage("player:sync", (sync: PlayerSync) =>
      seen.push(`player:sync with ${countOf(sync, "coins")} coins`),
    );
    alice.trade!.onMessage("tradeCompleted", () => seen.push("tradeCompleted"));

    // The drop's write is slow and then fails; the trade, accepted meanwhile, writes it before its swap.
    const { worldStore } = server.runtime;
    let writes = 0;
    const restoreWrites = interceptWorldWrites(worldStore, async (_write, save) => {
      if (writes++ === 0) {
        await sleep(400);
        throw new Error("database unavailable");
      }
      return save();
    });
    // And the world's frames take their time to leave, as they may on a busy core.
    const { post } = WriterThread.prototype;
    WriterThread.prototype.post = function (this: WriterThread, ...args: Parameters<typeof post>) {
      setTimeout(() => post.apply(this, args), 150);
    };
    try {
      alice.room.send("player:action", { action: "drop", inventorySlot: slotOf(alice, "bronze_sword") });
      await waitFor(() => writes > 0, "the drop's write under way");
      for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
      await waitFor(() => seen.includes("tradeCompleted"), "the trade completed");
      await sleep(500);
    } finally {
      restoreWrites();
      WriterThread.prototype.post = post;
    }
    const completed = seen.indexOf("tradeCompleted");
    assert.ok(
      seen.slice(0, completed).includes(`player:sync with ${coins} coins`),
      "the drop's tick came first",
    );
    assert.deepEqual(
      seen.slice(completed + 1).filter((line) => line === `player:sync with ${coins} coins`),
      [],
      "no inventory from before the trade after it",
    );
  });

  it("ends, telling both, a request between two players who start trading through the other one", async () => {
    const [alice, bob] = [await join(), await join()];
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const fromAlice = await bob.inbox.next("tradeIncoming");
    bob.room.send("tradeRequest", { targetPlayerId: alice.id });
    const fromBob = await alice.inbox.next("tradeIncoming");
    bob.room.send("tradeRequestRespond", { tradeId: fromAlice.tradeId, accept: true });
    for (const player of [alice, bob]) {
      assert.deepEqual(
        await player.inbox.next("tradeCancelled", (cancel) => cancel.tradeId === fromBob.tradeId, 5000, true),
        { tradeId: fromBob.tradeId, reason: "cancelled" },
        "bob's own request withdrawn, told to both",
      );
    }
  });

  it("keeps a trade whose room a stranger tried to join before its players did", async () => {
    const [alice, bob, carol] = [await join(), await join(), await join()];
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const { tradeId } = await bob.inbox.next("tradeIncoming");
    bob.room.send("tradeRequestRespond", { tradeId, accept: true });
    await alice.inbox.next("tradeStarted", (started) => started.tradeId === tradeId, 5000, true);
    await assert.rejects(carol.sdk.joinById(tradeId), /not a player of this trade/);
    for (const me of [alice, bob]) {
      me.trade = await me.sdk.joinById(tradeId);
      me.trade.onMessage("*", (event, data) => me.tradeInbox.push(String(event), data));
    }
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 5 });
    const seen = await bob.tradeInbox.next("tradeUpdated", (update) => update.theirOffer.length === 1);
    assert.equal(seen.theirOffer[0].quantity, 5);
  });

  const { complete } = TradeRepository.prototype;
  /** Resolves once the first swap that slowSwaps slowed has begun (its wait begins then). */
  let slowSwapStarted: Promise<void> = Promise.resolve();
  /**
   * Makes every swap (or only those `of` takes part in) wait `ms` longer, or until `until` settles, before
   * its transaction starts.
   */
  const slowSwaps = (until: number | Promise<void>, of?: Trader) => {
    let started!: () => void;
    slowSwapStarted = new Promise((resolve) => {
      started = resolve;
    });
    return Object.assign(TradeRepository.prototype, {
      complete: async function (this: TradeRepository, ...args: Parameters<typeof complete>) {
        const { a, b } = args[0];
        if (!of || a.characterId === of.id || b.characterId === of.id) {
          started();
          await (typeof until === "number" ? sleep(until) : until);
        }
        return complete.apply(this, args);
      },
    });
  };
  /**
   * Waits until a tick has come during the slowed swap under way and waits for it: 200 ms into the swap,
   * a tick of 100 ms has fired (timers fire in the order they are due).
   */
  const tickWaitsForSwap = async () => {
    await slowSwapStarted;
    await sleep(200);
  };
  const restoreSwaps = () => Object.assign(TradeRepository.prototype, { complete });

  describe("trades while the world's tick waits for others", () => {
    afterEach(restoreSwaps);
    const tick = async () => (await roomLiveWorld(async () => []).status())!.tick;

    it("keeps the world ticking while trades keep committing, each starting before the last ends", async () => {
      const pairs = [
        [await join(), await join()],
        [await join(), await join()],
      ] as const;
      // With one pair's trades starting half a swap after the other's, some trade is always committing.
      slowSwaps(150);
      // Counted in trades rather than time, so that a slow machine trades longer instead of less.
      const TRADES = 8;
      let trading = true;
      let completed = 0;
      let enough!: () => void;
      const tradedEnough = new Promise<void>((resolve) => {
        enough = resolve;
      });
      const keepTrading = async ([a, b]: readonly [Trader, Trader], startAfterMs: number) => {
        await sleep(startAfterMs);
        while (trading) {
          const outcome = await commit(a, b);
          assert.ok(outcome.ok, `trade refused: ${JSON.stringify(outcome)}`);
          if (++completed === TRADES) enough();
        }
      };
      const before = await tick();
      const traders = [keepTrading(pairs[0], 0), keepTrading(pairs[1], 75)];
      // A refused trade ends its trader with the refusal, which then fails the test at once.
      await Promise.race([tradedEnough, Promise.all(traders)]);
      const during = await tick();
      trading = false;
      await Promise.all(traders);
      // A tick (100 ms) comes due during every swap (150 ms), and the world takes it between two swaps.
      assert.ok(
        during - before >= TRADES / 2,
        `the world ticked ${during - before} times in ${TRADES} trades`,
      );
    });

    it("refuses, and moves nothing, a trade whose player left while it waited for the tick", async () => {
      const [first, second, alice, bob] = [await join(), await join(), await join(), await join()];
      const [aliceCoins, bobCoins] = [countOf(alice.sync, "coins"), countOf(bob.sync, "coins")];
      // The swap holds the tick until bob's leave has landed.
      let bobLeft!: () => void;
      slowSwaps(new Promise((resolve) => (bobLeft = resolve)));
      const inFlight = commit(first, second);
      // A tick comes during the swap and waits for it; alice's trade then waits for that tick.
      await tickWaitsForSwap();
      const waiting = commit(alice, bob, fiveCoinsOf(alice));
      await leave(bob.room);
      const roomId = (await findWorld())!.roomId;
      await waitForAsync(
        async () => !(await matchMaker.remoteRoomCall<WorldRoom>(roomId, "plays", [bob.id])),
        "bob out of the world",
      );
      bobLeft();
      assert.deepEqual(await waiting, { ok: false, reason: "player_offline" });
      assert.equal((await inFlight).ok, true);
      const storedCoins = (id: string) => storedCount(server, id, "coins");
      await waitForAsync(async () => (await storedCoins(bob.id)) === bobCoins, "bob's last session written");
      assert.equal(await storedCoins(alice.id), aliceCoins);
      assert.equal(countOf(latestSync(alice), "coins"), aliceCoins);
    });

    it("refuses a second trade of a player whose first is committing while the tick waits", async () => {
      const [first, second, third] = [await join(), await join(), await join()];
      const coins = countOf(first.sync, "coins");
      const fiveCoins = fiveCoinsOf(first);
      slowSwaps(400);
      const inFlight = commit(first, second, fiveCoins);
      // A tick comes during the swap and waits for it.
      await tickWaitsForSwap();
      assert.deepEqual(await commit(first, third, fiveCoins), { ok: false, reason: "already_trading" });
      assert.equal((await inFlight).ok, true);
      await waitForAsync(
        async () => (await storedCount(server, first.id, "coins")) === coins - 5,
        "only the first trade's coins moved",
      );
      assert.equal(await storedCount(server, third.id, "coins"), countOf(third.sync, "coins"));
    });
  });

  describe("swaps their trade room would stop waiting for", () => {
    afterEach(restoreSwaps);
    const assertCoinsUnmoved = async (...players: Trader[]) => {
      for (const player of players) {
        const coins = countOf(player.sync, "coins");
        assert.equal(await storedCount(server, player.id, "coins"), coins, "stored coins");
        assert.equal(countOf(latestSync(player), "coins"), coins, "the world's coins");
      }
    };

    it("refuses with commit_failed, and moves nothing, a swap that would commit after its room stopped waiting", async () => {
      const [alice, bob] = [await join(), await join()];
      slowSwaps(500, alice);
      const outcome = await commit(alice, bob, fiveCoinsOf(alice), ANSWER_RESERVE_MS + 300);
      assert.deepEqual(outcome, { ok: false, reason: "commit_failed" });
      await assertCoinsUnmoved(alice, bob);
      // With the time to answer in, the same swap goes through.
      assert.deepEqual(await commit(alice, bob, fiveCoinsOf(alice), ANSWER_RESERVE_MS + 2000), { ok: true });
      await waitFor(
        () => countOf(latestSync(alice), "coins") === countOf(alice.sync, "coins") - 5,
        "alice's coins sent",
      );
    });

    it("counts the wait for a tick held by other trades against the time its room waits", async () => {
      const [first, second, alice, bob] = [await join(), await join(), await join(), await join()];
      slowSwaps(700, first);
      const inFlight = commit(first, second, fiveCoinsOf(first));
      // A tick comes during that swap and waits for it; alice's trade then waits for that tick.
      await tickWaitsForSwap();
      assert.deepEqual(await commit(alice, bob, fiveCoinsOf(alice), ANSWER_RESERVE_MS + 300), {
        ok: false,
        reason: "commit_failed",
      });
      assert.deepEqual(await inFlight, { ok: true });
      await assertCoinsUnmoved(alice, bob);
    });
  });

  describe("swaps the world has to wait for", () => {
    const { complete, inventoriesIfCompleted } = TradeRepository.prototype;
    afterEach(() => {
      Object.assign(TradeRepository.prototype, { complete, inventoriesIfCompleted });
    });
    const lostAnswer = async function (this: TradeRepository, ...args: Parameters<typeof complete>) {
      await complete.apply(this, args);
      throw new Error("Connection terminated unexpectedly");
    };
    const storedCoins = (id: string) => storedCount(server, id, "coins");

    /** Alice offers all her coins to bob; both reach the confirmation screen, and accept once `repository` is patched. */
    async function tradeAllCoins(repository: Partial<TradeRepository>) {
      const [alice, bob] = [await join(), await join()];
      const [aliceCoins, bobCoins] = [countOf(alice.sync, "coins"), countOf(bob.sync, "coins")];
      const tradeId = await startTrade(alice, bob);
      alice.trade!.send("tradeAddItem", {
        tradeId,
        inventorySlot: slotOf(alice, "coins"),
        quantity: aliceCoins,
      });
      await bob.tradeInbox.next("tradeUpdated", (update) => update.theirOffer.length === 1);
      for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
      await alice.tradeInbox.next("tradeConfirmScreen");
      Object.assign(TradeRepository.prototype, repository);
      for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
      return { alice, bob, aliceCoins, bobCoins };
    }

    it("completes a swap whose answer was lost when its history says it committed", async () => {
      const { alice, bob, aliceCoins, bobCoins } = await tradeAllCoins({ complete: lostAnswer });
      const done = await bob.tradeInbox.next("tradeCompleted", () => true, 5000, true);
      assert.deepEqual(done.receivedItems, [{ itemId: "coins", quantity: aliceCoins }]);
      await syncWhere(bob, (sync) => countOf(sync, "coins") === bobCoins + aliceCoins);
      await syncWhere(alice, (sync) => countOf(sync, "coins") === 0);
      assert.deepEqual([await storedCoins(alice.id), await storedCoins(bob.id)], [0, bobCoins + aliceCoins]);
    });

    it("undoes a swap whose answer was lost when the database cannot say: the next tick writes both inventories", async () => {
      const { alice, bob, aliceCoins, bobCoins } = await tradeAllCoins({
        complete: lostAnswer,
        inventoriesIfCompleted: async () => {
          throw new Error("Connection terminated unexpectedly");
        },
      });
      const cancelled = await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true);
      assert.equal(cancelled.reason, "commit_failed");
      await waitForAsync(
        async () => (await storedCoins(alice.id)) === aliceCoins,
        "alice's coins written back",
      );
      assert.equal(await storedCoins(bob.id), bobCoins, "bob's written back in the same transaction");
      assert.equal(countOf(latestSync(alice), "coins"), aliceCoins);
      const history = new TradeRepository(server.runtime.database.db);
      assert.deepEqual(await history.history(alice.id), [], "the undone swap is not in the history");
    });

    const slowly = <A extends unknown[], R>(work: (...args: A) => Promise<R>, started: () => void) =>
      async function (this: TradeRepository, ...args: A): Promise<R> {
        started();
        await sleep(400);
        return work.apply(this, args);
      };
    for (const [what, slowDown] of [
      ["a slow swap", (started: () => void) => ({ complete: slowly(complete, started) })],
      [
        "the slow reading of a lost answer's history",
        (started: () => void) => ({
          complete: lostAnswer,
          inventoriesIfCompleted: slowly(inventoriesIfCompleted, started),
        }),
      ],
    ] as const) {
      it(`writes the final save of a player who leaves during ${what} from the swap's outcome`, async () => {
        let started!: () => void;
        const waiting = new Promise<void>((resolve) => {
          started = resolve;
        });
        const { alice, bob, aliceCoins, bobCoins } = await tradeAllCoins(slowDown(() => started()));
        await waiting;
        // Alice closes her game while the world waits.
        await Promise.all([leave(alice.trade), leave(alice.room)]);
        await bob.tradeInbox.next("tradeCompleted", () => true, 5000, true);
        await waitForAsync(async () => (await storedCoins(alice.id)) === 0, "alice's final save", 5000);
        assert.equal(await storedCoins(bob.id), bobCoins + aliceCoins);
      });
    }
  });

  it("answers trade messages with bad data or for another trade with an error", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: "0", quantity: 1 });
    assert.equal((await alice.tradeInbox.next("error")).code, "bad_request");
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: 40, quantity: 1 });
    assert.equal((await alice.tradeInbox.next("tradeError")).reason, "invalid_slot");
    // Named after the trade the message named, as /ws does: not the one open here.
    alice.trade!.send("tradeAddItem", { tradeId: "other", inventorySlot: 0, quantity: 1 });
    assert.deepEqual(await alice.tradeInbox.next("tradeError"), {
      tradeId: "other",
      reason: "not_found",
      message: "There is no such trade.",
    });
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 26 });
    assert.equal((await alice.tradeInbox.next("tradeError")).reason, "insufficient_items");
  });

  it("answers an event sent to the other room with wrong_room, naming it, and changes nothing", async () => {
    const [alice, bob] = [await join(), await join()];
    const tradeId = await startTrade(alice, bob);
    alice.room.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 1 });
    assert.deepEqual(await alice.inbox.next("error", (error) => error.event === "tradeAddItem"), {
      code: "wrong_room",
      message: "Send trade offers to the trade's room.",
      event: "tradeAddItem",
    });
    alice.trade!.send("player:move", { x: 33, z: 33 });
    const refused = await alice.tradeInbox.next("error", (error) => error.event === "player:move");
    assert.equal(refused.code, "wrong_room", JSON.stringify(refused));
    alice.trade!.send("tradeRequestRespond", { tradeId, accept: true });
    const respond = await alice.tradeInbox.next("error", (error) => error.event === "tradeRequestRespond");
    assert.equal(respond.code, "wrong_room", JSON.stringify(respond));
    const updated = bob.tradeInbox.next("tradeUpdated", (view) => view.theirOffer.length === 1);
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 2 });
    assert.equal((await updated).theirOffer[0].quantity, 2, "only the offer sent to the trade counts");
  });

  it("replaces a pending request with a new one from the same player", async () => {
    const [alice, bob, carol] = [await join(), await join(), await join()];
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const first = await bob.inbox.next("tradeIncoming");
    alice.room.send("tradeRequest", { targetPlayerId: carol.id });
    await carol.inbox.next("tradeIncoming");
    assert.deepEqual(await bob.inbox.next("tradeCancelled", () => true, 5000, true), {
      tradeId: first.tradeId,
      reason: "cancelled",
    });
    bob.room.send("tradeRequestRespond", { tradeId: first.tradeId, accept: true });
    assert.equal((await bob.inbox.next("tradeError")).reason, "not_found");
  });

  it("cancels the other pending requests with partner_busy once one is accepted", async () => {
    const [alice, bob, carol] = [await join(), await join(), await join()];
    carol.room.send("tradeRequest", { targetPlayerId: bob.id });
    const fromCarol = await bob.inbox.next("tradeIncoming");
    await startTrade(alice, bob);
    assert.deepEqual(await carol.inbox.next("tradeCancelled", () => true, 5000, true), {
      tradeId: fromCarol.tradeId,
      reason: "partner_busy",
    });
    bob.room.send("tradeRequestRespond", { tradeId: fromCarol.tradeId, accept: true });
    assert.equal((await bob.inbox.next("tradeError")).reason, "not_found");
    // The reason is about bob, so only carol hears it: by bob's later tradeError (same connection,
    // sent in order) a tradeCancelled for carol's request would have reached him.
    assert.deepEqual(
      bob.inbox.all("tradeCancelled").filter((cancel) => cancel.tradeId === fromCarol.tradeId),
      [],
    );
  });

  it("lets players exactly 10 tiles apart (Chebyshev) trade, and refuses 11", async () => {
    const [alice, bob] = [await join(), await join()];
    await becomeAdmin(alice, ADMIN_CODE);
    await becomeAdmin(bob, ADMIN_CODE);
    await teleport(bob, 32, 32);
    // dx 7, dz 10: Chebyshev 10 (Euclidean 12.2, Manhattan 17)
    await teleport(alice, 39, 42);
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const incoming = await bob.inbox.next("tradeIncoming");
    assert.equal(incoming.fromPlayerId, alice.id);
    alice.room.send("tradeCancel", { tradeId: incoming.tradeId });
    await bob.inbox.next("tradeCancelled", (cancel) => cancel.tradeId === incoming.tradeId, 5000, true);
    // dx 7, dz 11: Chebyshev 11
    await teleport(alice, 39, 43);
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    assert.equal((await alice.inbox.next("tradeError")).reason, "too_far");
    // dx 11, dz 0: Chebyshev 11 along the other axis
    await teleport(alice, 32, 32);
    await teleport(bob, 43, 32);
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    assert.equal((await alice.inbox.next("tradeError")).reason, "too_far");
    assert.equal(bob.inbox.all("tradeIncoming").length, 1, "bob heard only of the request within 10 tiles");
  });

  it("refuses a request to a player more than 10 tiles away", async () => {
    const [alice, bob] = [await join(), await join()];
    await becomeAdmin(alice, ADMIN_CODE);
    await teleport(alice, 32, 45);
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    assert.equal((await alice.inbox.next("tradeError")).reason, "too_far");
  });

  it("starts no trade whose players moved apart since the request, and keeps the request for when they are near", async () => {
    const [alice, bob] = [await join(), await join()];
    await becomeAdmin(alice, ADMIN_CODE);
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    const incoming = await bob.inbox.next("tradeIncoming");
    await teleport(alice, 32, 45);
    bob.room.send("tradeRequestRespond", { tradeId: incoming.tradeId, accept: true });
    assert.equal((await bob.inbox.next("tradeError")).reason, "too_far");
    await teleport(alice, 32, 34);
    bob.room.send("tradeRequestRespond", { tradeId: incoming.tradeId, accept: true });
    await alice.inbox.next("tradeStarted", (started) => started.tradeId === incoming.tradeId);
  });

  it("ends a trade whose players walked out of range before the last accept, and moves nothing", async () => {
    const [alice, bob] = [await join(), await join()];
    await becomeAdmin(alice, ADMIN_CODE);
    const tradeId = await startTrade(alice, bob);
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "coins"), quantity: 25 });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    await alice.tradeInbox.next("tradeConfirmScreen");
    await teleport(alice, 32, 45);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    assert.equal((await bob.tradeInbox.next("tradeError")).reason, "too_far");
    assert.equal(
      (await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true)).reason,
      "commit_failed",
    );
    const stored = await server.runtime.characters.load(bob.id);
    assert.equal(stored?.inventory.find((e) => e.itemId === "coins")?.quantity, 25, "bob received nothing");
  });

  it("refuses a request to a player whose connection dropped, though the seat is kept for a reconnection", async () => {
    const [alice, bob] = [await join(), await join()];
    // Bob's own request ends when the world learns of his drop: from then on he is not online.
    bob.room.send("tradeRequest", { targetPlayerId: alice.id });
    await alice.inbox.next("tradeIncoming");
    bob.room.connection.close();
    assert.equal((await alice.inbox.next("tradeCancelled")).reason, "partner_disconnected");
    alice.room.send("tradeRequest", { targetPlayerId: bob.id });
    assert.equal((await alice.inbox.next("tradeError")).reason, "player_offline");
  });

  it("refuses to offer an untradeable item", async () => {
    const [alice, bob] = [await join(), await join()];
    await becomeAdmin(alice, ADMIN_CODE);
    const given = await give(alice, "guild_token", 1);
    const tradeId = await startTrade(alice, bob);
    const slot = given.inventory.find((entry) => entry.itemId === "guild_token")!.slot;
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slot, quantity: 1 });
    assert.equal((await alice.tradeInbox.next("tradeError")).reason, "untradeable");
  });

  it("moves nothing when the receiver has no room, and says so to both", async () => {
    const [alice, bob] = [await join(), await join()];
    await becomeAdmin(bob, ADMIN_CODE);
    const free = 28 - bob.sync.inventory.length;
    await give(bob, "logs", free);
    const tradeId = await startTrade(alice, bob);
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(alice, "bronze_axe"), quantity: 1 });
    await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    await alice.tradeInbox.next("tradeConfirmScreen", () => true, 5000, true);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    for (const me of [alice, bob]) {
      assert.equal((await me.tradeInbox.next("tradeError", () => true, 5000, true)).reason, "inventory_full");
      assert.equal(
        (await me.tradeInbox.next("tradeCancelled", () => true, 5000, true)).reason,
        "commit_failed",
      );
    }
    const stored = await server.runtime.characters.load(alice.id);
    assert.ok(
      stored?.inventory.some((entry) => entry.itemId === "bronze_axe"),
      "alice kept her axe",
    );
  });
});

describe("TradeRoom when the server shuts down", function () {
  this.timeout(30000);

  it("cancels an open trade for both players with server_shutdown", async () => {
    const server = await startTestServer({ WORLD_TICK_MS: "100" });
    const [alice, bob] = [asTrader(await joinAsNewPlayer(server)), asTrader(await joinAsNewPlayer(server))];
    const tradeId = await startTrade(alice, bob);
    await server.stop();
    for (const trader of [alice, bob]) {
      assert.deepEqual(await trader.tradeInbox.next("tradeCancelled", () => true, 5000, true), {
        tradeId,
        reason: "server_shutdown",
      });
    }
  });
});

describe("TradeRoom: the world closing while a swap commits", function () {
  this.timeout(30000);

  it("keeps the committed swap: its players leave with its outcome, not with what they held before", async () => {
    const server = await startTestServer({ WORLD_TICK_MS: "100" });
    const { complete } = TradeRepository.prototype;
    try {
      const [alice, bob] = [asTrader(await joinAsNewPlayer(server)), asTrader(await joinAsNewPlayer(server))];
      const [aliceCoins, bobCoins] = [countOf(alice.sync, "coins"), countOf(bob.sync, "coins")];
      // The swap's transaction has committed; the world has not yet taken in its outcome.
      let committed = false;
      TradeRepository.prototype.complete = async function (this: TradeRepository, ...args) {
        const outcome = await complete.apply(this, args);
        committed = true;
        await sleep(1000);
        return outcome;
      };
      const swap = commit(alice, bob, fiveCoinsOf(alice)).catch(() => undefined);
      await waitFor(() => committed, "the swap committed");
      const world = matchMaker.getLocalRoomById((await findWorld())!.roomId)!;
      await world.disconnect();
      await swap;
      assert.equal(await storedCount(server, alice.id, "coins"), aliceCoins - 5);
      assert.equal(await storedCount(server, bob.id, "coins"), bobCoins + 5);
    } finally {
      TradeRepository.prototype.complete = complete;
      await server.stop();
    }
  });
});
