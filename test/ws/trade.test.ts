import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { ANONYMOUS_AUDIENCE, ANONYMOUS_ISSUER } from "../../src/auth/tokens.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import { sleep } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectNewPlayer, WsClient, type WsPlayer } from "../support/ws-client.js";

describe("/ws: trading between two plain WebSocket clients", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: WsPlayer[] = [];
  const connect = async () => {
    const player = await connectNewPlayer(server);
    players.push(player);
    return player;
  };

  /** Alice asks, Bob accepts: both are told the trade started. Returns the trade's id. */
  async function startTrade(alice: WsPlayer, bob: WsPlayer): Promise<string> {
    const incoming = bob.client.next("tradeIncoming");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const { data: request } = await incoming;
    assert.deepEqual(request, {
      tradeId: request.tradeId,
      fromPlayerId: alice.id,
      fromPlayerName: alice.sync.name,
    });
    const started = [alice, bob].map((player) => player.client.next("tradeStarted"));
    bob.client.send("tradeRequestRespond", { tradeId: request.tradeId, accept: true });
    const [toAlice, toBob] = await Promise.all(started);
    assert.deepEqual(toAlice?.data, {
      tradeId: request.tradeId,
      partnerId: bob.id,
      partnerName: bob.sync.name,
    });
    assert.deepEqual(toBob?.data, {
      tradeId: request.tradeId,
      partnerId: alice.id,
      partnerName: alice.sync.name,
    });
    return request.tradeId;
  }

  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100" });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
  });
  after(() => server?.stop());

  it("completes a trade of coins and the next player:sync of each shows them moved", async () => {
    const alice = await connect();
    const bob = await connect();
    const coins = alice.sync.inventory.find((entry) => entry.itemId === "coins");
    assert.ok(coins, "the starter kit has coins");
    const tradeId = await startTrade(alice, bob);

    const offered = (data: any) => data.tradeId === tradeId;
    const bobSeesOffer = bob.client.next(
      "tradeUpdated",
      (data) => offered(data) && data.theirOffer.length === 1,
    );
    const aliceSeesOffer = alice.client.next(
      "tradeUpdated",
      (data) => offered(data) && data.myOffer.length === 1,
    );
    alice.client.send("tradeAddItem", { tradeId, inventorySlot: coins.slot, quantity: 10 });
    const [{ data: bobView }] = await Promise.all([bobSeesOffer, aliceSeesOffer]);
    assert.deepEqual(bobView.theirOffer, [{ inventorySlot: coins.slot, itemId: "coins", quantity: 10 }]);
    assert.deepEqual(bobView.myOffer, []);

    const confirm = [alice, bob].map((player) => player.client.next("tradeConfirmScreen"));
    alice.client.send("tradeAccept", { tradeId });
    bob.client.send("tradeAccept", { tradeId });
    const [aliceConfirm, bobConfirm] = await Promise.all(confirm);
    assert.deepEqual(aliceConfirm?.data.values, { mine: 10, theirs: 0 });
    assert.deepEqual(bobConfirm?.data.values, { mine: 0, theirs: 10 });

    const completed = [alice, bob].map((player) => player.client.next("tradeCompleted"));
    const synced = [alice, bob].map((player) => player.client.next("player:sync"));
    alice.client.send("tradeAccept", { tradeId });
    bob.client.send("tradeAccept", { tradeId });
    const [aliceDone, bobDone] = await Promise.all(completed);
    assert.deepEqual(aliceDone?.data, { tradeId, receivedItems: [] });
    assert.deepEqual(bobDone?.data, { tradeId, receivedItems: [{ itemId: "coins", quantity: 10 }] });
    const [aliceSync, bobSync] = await Promise.all(synced);
    assert.equal(aliceSync?.data.coins, alice.sync.coins - 10);
    assert.equal(bobSync?.data.coins, bob.sync.coins + 10);
  });

  it("tells both players tradeCancelled when one cancels, and they may trade again", async () => {
    const alice = await connect();
    const bob = await connect();
    const tradeId = await startTrade(alice, bob);
    const cancelled = [alice, bob].map((player) => player.client.next("tradeCancelled"));
    bob.client.send("tradeCancel", { tradeId });
    for (const { data } of await Promise.all(cancelled))
      assert.deepEqual(data, { tradeId, reason: "cancelled" });
    await startTrade(bob, alice);
  });

  it("cancels with partner_disconnected when one client closes mid-trade", async () => {
    const alice = await connect();
    const bob = await connect();
    const tradeId = await startTrade(alice, bob);
    const cancelled = bob.client.next("tradeCancelled");
    await alice.client.close();
    assert.deepEqual((await cancelled).data, { tradeId, reason: "partner_disconnected" });
  });

  it("answers a trade event for a trade the client is not in with tradeError not_found", async () => {
    const alice = await connect();
    const refused = alice.client.next("tradeError", (_data, frame) => frame.id === "add-1");
    alice.client.send("tradeAddItem", { tradeId: "no-such-trade", inventorySlot: 0, quantity: 1 }, "add-1");
    assert.equal((await refused).data.reason, "not_found");
  });
  it("lets a connection trade after the token it opened with has expired", async () => {
    // The connection was authenticated at its upgrade; it cannot present a fresh token afterwards.
    const subject = randomUUID();
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(subject)
      .setIssuer(ANONYMOUS_ISSUER)
      .setAudience(ANONYMOUS_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 2)
      .sign(server.runtime.jwtSecret);
    const client = await WsClient.connect(server.wsUrl, { header: token });
    const sync = (await client.first()).data as PlayerSync;
    const alice: WsPlayer = { client, sync, id: sync.id };
    players.push(alice);
    const bob = await connect();
    await sleep(3000);
    const tradeId = await startTrade(alice, bob);
    const coins = alice.sync.inventory.find((entry) => entry.itemId === "coins")!;
    const bobSeesOffer = bob.client.next(
      "tradeUpdated",
      (data) => data.tradeId === tradeId && data.theirOffer.length === 1,
    );
    alice.client.send("tradeAddItem", { tradeId, inventorySlot: coins.slot, quantity: 5 });
    await bobSeesOffer;
  });
});
