import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { ANONYMOUS_AUDIENCE, SERVER_ISSUER } from "../../src/auth/tokens.js";
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

  it("tells both who has accepted on the confirm screen with tradeUpdated, the offers as they were frozen", async () => {
    const alice = await connect();
    const bob = await connect();
    const coins = alice.sync.inventory.find((entry) => entry.itemId === "coins")!;
    const tradeId = await startTrade(alice, bob);
    const offer = [{ inventorySlot: coins.slot, itemId: "coins", quantity: 3 }];
    const offered = bob.client.next("tradeUpdated", (data) => data.theirOffer.length === 1);
    alice.client.send("tradeAddItem", { tradeId, inventorySlot: coins.slot, quantity: 3 });
    await offered;
    const confirm = [alice, bob].map((player) => player.client.next("tradeConfirmScreen"));
    alice.client.send("tradeAccept", { tradeId });
    bob.client.send("tradeAccept", { tradeId });
    await Promise.all(confirm);

    const updated = [alice, bob].map((player) => player.client.next("tradeUpdated"));
    alice.client.send("tradeAccept", { tradeId }, "confirm-1");
    const [toAlice, toBob] = await Promise.all(updated);
    assert.deepEqual(toAlice, {
      event: "tradeUpdated",
      data: { tradeId, myOffer: offer, theirOffer: [], myAccepted: true, theirAccepted: false },
      id: "confirm-1",
    });
    assert.deepEqual(toBob, {
      event: "tradeUpdated",
      data: { tradeId, myOffer: [], theirOffer: offer, myAccepted: false, theirAccepted: true },
    });
    // Still the confirm screen: the offers cannot change, and bob's accept completes the trade.
    const refused = alice.client.next("tradeError");
    alice.client.send("tradeAddItem", { tradeId, inventorySlot: coins.slot, quantity: 1 });
    assert.equal((await refused).data.reason, "wrong_stage");
    const completed = bob.client.next("tradeCompleted");
    bob.client.send("tradeAccept", { tradeId });
    assert.deepEqual((await completed).data, { tradeId, receivedItems: [{ itemId: "coins", quantity: 3 }] });
  });

  it("takes an offered item dropped since out of the offer at the next accept, back at the offer stage, telling both", async () => {
    const alice = await connect();
    const bob = await connect();
    const shrimps = alice.sync.inventory.find((entry) => entry.itemId === "shrimps")!;
    const coins = alice.sync.inventory.find((entry) => entry.itemId === "coins")!;
    const tradeId = await startTrade(alice, bob);
    const offered = bob.client.next("tradeUpdated", (data) => data.theirOffer.length === 2);
    alice.client.send("tradeAddItem", { tradeId, inventorySlot: shrimps.slot, quantity: 1 });
    alice.client.send("tradeAddItem", { tradeId, inventorySlot: coins.slot, quantity: 5 });
    await offered;
    const confirm = [alice, bob].map((player) => player.client.next("tradeConfirmScreen"));
    alice.client.send("tradeAccept", { tradeId });
    bob.client.send("tradeAccept", { tradeId });
    await Promise.all(confirm);

    // On the confirm screen, Alice drops the shrimps she offered.
    const dropped = alice.client.next(
      "player:sync",
      (data) => !data.inventory.some((e: any) => e.slot === shrimps.slot),
    );
    alice.client.send("player:action", { action: "drop", inventorySlot: shrimps.slot });
    await dropped;

    const told = (player: WsPlayer) =>
      Promise.all([player.client.next("tradeUpdated"), player.client.next("tradeError")]);
    const [toAlice, toBob] = [told(alice), told(bob)];
    bob.client.send("tradeAccept", { tradeId }, "accept-1");
    const [aliceUpdate, aliceError] = await toAlice;
    const [bobUpdate, bobError] = await toBob;
    const left = [{ inventorySlot: coins.slot, itemId: "coins", quantity: 5 }];
    assert.deepEqual(bobUpdate.data, {
      tradeId,
      myOffer: [],
      theirOffer: left,
      myAccepted: false,
      theirAccepted: false,
    });
    assert.deepEqual(aliceUpdate.data, {
      tradeId,
      myOffer: left,
      theirOffer: [],
      myAccepted: false,
      theirAccepted: false,
    });
    for (const error of [aliceError, bobError]) assert.equal(error.data.reason, "offer_changed");
    assert.equal(bobError.id, "accept-1", "the accept that found it is answered");
    assert.ok(
      bob.client.frames.indexOf(bobUpdate) < bob.client.frames.indexOf(bobError),
      "the offers first, then why",
    );

    // Back at the offer stage: offers may change again, and two accepts lead to the confirm screen anew.
    const again = [alice, bob].map((player) => player.client.next("tradeConfirmScreen"));
    alice.client.send("tradeAccept", { tradeId });
    bob.client.send("tradeAccept", { tradeId });
    const [aliceConfirm] = await Promise.all(again);
    assert.deepEqual(aliceConfirm?.data.myOffer, left);
    const completed = bob.client.next("tradeCompleted");
    alice.client.send("tradeAccept", { tradeId });
    bob.client.send("tradeAccept", { tradeId });
    assert.deepEqual((await completed).data, { tradeId, receivedItems: [{ itemId: "coins", quantity: 5 }] });
  });

  it("tells both players tradeCancelled when one cancels, and they may trade again", async () => {
    const alice = await connect();
    const bob = await connect();
    const tradeId = await startTrade(alice, bob);
    const cancelled = [alice, bob].map((player) => player.client.next("tradeCancelled"));
    bob.client.send("tradeCancel", { tradeId }, "cancel-1");
    const [toAlice, toBob] = await Promise.all(cancelled);
    const data = { tradeId, reason: "cancelled" };
    assert.deepEqual(toBob, { event: "tradeCancelled", data, id: "cancel-1" });
    assert.deepEqual(toAlice, { event: "tradeCancelled", data });
    await startTrade(bob, alice);
  });

  it("acknowledges a request with tradeRequestSent, whose tradeId the requester can cancel it with", async () => {
    const alice = await connect();
    const bob = await connect();
    const incoming = bob.client.next("tradeIncoming");
    const sent = alice.client.next("tradeRequestSent");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id }, "ask-1");
    const acknowledged = await sent;
    const { tradeId } = (await incoming).data;
    assert.deepEqual(acknowledged, {
      event: "tradeRequestSent",
      data: { tradeId, targetPlayerId: bob.id, targetPlayerName: bob.sync.name },
      id: "ask-1",
    });

    const cancelled = [alice, bob].map((player) => player.client.next("tradeCancelled"));
    alice.client.send("tradeCancel", { tradeId }, "cancel-1");
    const [toAlice, toBob] = await Promise.all(cancelled);
    assert.deepEqual(toAlice, {
      event: "tradeCancelled",
      data: { tradeId, reason: "cancelled" },
      id: "cancel-1",
    });
    assert.deepEqual(toBob, { event: "tradeCancelled", data: { tradeId, reason: "cancelled" } });

    const refused = bob.client.next("tradeError");
    bob.client.send("tradeRequestRespond", { tradeId, accept: true });
    assert.equal((await refused).data.reason, "not_found", "a cancelled request cannot be accepted");
    await startTrade(alice, bob);
  });

  it("takes the requested player's tradeCancel of a pending request as a decline", async () => {
    const alice = await connect();
    const bob = await connect();
    const incoming = bob.client.next("tradeIncoming");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const { tradeId } = (await incoming).data;
    const declined = [alice, bob].map((player) => player.client.next("tradeCancelled"));
    bob.client.send("tradeCancel", { tradeId }, "no-thanks");
    const [toAlice, toBob] = await Promise.all(declined);
    assert.deepEqual(toBob, {
      event: "tradeCancelled",
      data: { tradeId, reason: "declined" },
      id: "no-thanks",
    });
    assert.deepEqual(toAlice, { event: "tradeCancelled", data: { tradeId, reason: "declined" } });
  });

  it("echoes each trade message's id on the replies it causes to its sender, never on the partner's copy", async () => {
    const alice = await connect();
    const bob = await connect();
    const coins = alice.sync.inventory.find((entry) => entry.itemId === "coins")!;
    const incoming = bob.client.next("tradeIncoming");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const { tradeId } = (await incoming).data;

    /** `sender` sends `event` with `id`; both players get `reply`, only the sender's copy with the id. */
    async function exchange(sender: WsPlayer, partner: WsPlayer, event: string, data: object, reply: string) {
      const ofTrade = (frameData: any) => frameData.tradeId === tradeId;
      const replies = [sender, partner].map((player) => player.client.next(reply, ofTrade));
      const id = `${event}-${sender.id}-${Math.random()}`;
      sender.client.send(event, { tradeId, ...data }, id);
      const [toSender, toPartner] = await Promise.all(replies);
      assert.equal(toSender?.id, id, `${reply} to the sender of ${event}`);
      assert.equal(toPartner?.id, undefined, `${reply} to the partner of the sender of ${event}`);
    }

    await exchange(bob, alice, "tradeRequestRespond", { accept: true }, "tradeStarted");
    // Each connection is shown the trade once it has joined it; replies come after that.
    const shown = (frame: { event: string; data: any }) =>
      frame.event === "tradeUpdated" && frame.data.tradeId === tradeId;
    await Promise.all([alice, bob].map((player) => player.client.received(shown)));
    await exchange(alice, bob, "tradeAddItem", { inventorySlot: coins.slot, quantity: 10 }, "tradeUpdated");
    await exchange(alice, bob, "tradeRemoveItem", { inventorySlot: coins.slot, quantity: 4 }, "tradeUpdated");
    await exchange(bob, alice, "tradeAccept", {}, "tradeUpdated");
    await exchange(alice, bob, "tradeAccept", {}, "tradeConfirmScreen");
    await exchange(bob, alice, "tradeAccept", {}, "tradeUpdated");
    await exchange(alice, bob, "tradeAccept", {}, "tradeCompleted");
  });

  it("answers trade data that fail the schema with error bad_request, naming the event, before looking for the trade", async () => {
    const alice = await connect();
    for (const [event, data] of [
      ["tradeAccept", {}],
      ["tradeCancel", { tradeId: 7 }],
    ] as const) {
      const answer = alice.client.next("error", (_data, frame) => frame.id === `bad-${event}`);
      alice.client.send(event, data, `bad-${event}`);
      const { data: error } = await answer;
      assert.equal(error.code, "bad_request");
      assert.equal(error.event, event);
      assert.match(error.message, /tradeId/);
    }
  });

  it("refuses an offer of a slot that holds nothing or a quantity that is not a whole number with tradeError", async () => {
    const alice = await connect();
    const bob = await connect();
    const tradeId = await startTrade(alice, bob);
    const coins = alice.sync.inventory.find((entry) => entry.itemId === "coins")!.slot;
    for (const [n, data, reason] of [
      [1, { inventorySlot: coins, quantity: 0 }, "invalid_quantity"],
      [2, { inventorySlot: coins, quantity: 1.5 }, "invalid_quantity"],
      [3, { inventorySlot: coins, quantity: -5 }, "invalid_quantity"],
      [4, { inventorySlot: 30, quantity: 1 }, "invalid_slot"],
      [5, { inventorySlot: -1, quantity: 1 }, "invalid_slot"],
    ] as const) {
      const refused = alice.client.next("tradeError", (_data, frame) => frame.id === `add-${n}`);
      alice.client.send("tradeAddItem", { tradeId, ...data }, `add-${n}`);
      assert.deepEqual((await refused).data, { tradeId, reason, message: (await refused).data.message });
    }
    const malformed = alice.client.next("error", (_data, frame) => frame.id === "add-text");
    alice.client.send("tradeAddItem", { tradeId, inventorySlot: coins, quantity: "10" }, "add-text");
    assert.equal((await malformed).data.code, "bad_request", "the wrong type is a malformed message");
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
    const notCancelled = alice.client.next("tradeError", (_data, frame) => frame.id === "cancel-1");
    alice.client.send("tradeCancel", { tradeId: "no-such-trade" }, "cancel-1");
    assert.equal((await notCancelled).data.reason, "not_found");
  });

  /** The tradeError `player` is answered with to one message. */
  async function tradeErrorOf(player: WsPlayer, event: string, data: unknown, id: string) {
    const answer = player.client.next("tradeError", (_data, frame) => frame.id === id);
    player.client.send(event, data, id);
    return (await answer).data as { tradeId?: string; reason: string; message: string };
  }

  it("answers a third player's messages on another pair's trade with not_participant, pending or started", async () => {
    const alice = await connect();
    const bob = await connect();
    const carol = await connect();
    const incoming = bob.client.next("tradeIncoming");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const pendingId = (await incoming).data.tradeId;
    assert.equal(
      (await tradeErrorOf(carol, "tradeCancel", { tradeId: pendingId }, "pending")).reason,
      "not_participant",
    );
    alice.client.send("tradeCancel", { tradeId: pendingId });
    await bob.client.next("tradeCancelled");

    const tradeId = await startTrade(alice, bob);
    const reasons: Record<string, string> = {};
    for (const [event, data] of [
      ["tradeAccept", { tradeId }],
      ["tradeAddItem", { tradeId, inventorySlot: 0, quantity: 1 }],
      ["tradeRemoveItem", { tradeId, inventorySlot: 0 }],
      ["tradeCancel", { tradeId }],
      ["tradeRequestRespond", { tradeId, accept: true }],
    ] as const) {
      reasons[event] = (await tradeErrorOf(carol, event, data, `carol-${event}`)).reason;
    }
    assert.deepEqual(reasons, {
      tradeAccept: "not_participant",
      tradeAddItem: "not_participant",
      tradeRemoveItem: "not_participant",
      tradeCancel: "not_participant",
      tradeRequestRespond: "not_participant",
    });
    // Its own players answering the request again are told the trade is past that stage.
    assert.equal(
      (await tradeErrorOf(bob, "tradeRequestRespond", { tradeId, accept: true }, "again")).reason,
      "wrong_stage",
    );
  });

  it("answers an offer or an accept on a request still pending with wrong_stage", async () => {
    const alice = await connect();
    const bob = await connect();
    const incoming = bob.client.next("tradeIncoming");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const tradeId = (await incoming).data.tradeId;
    const coins = alice.sync.inventory.find((entry) => entry.itemId === "coins")!.slot;
    const add = await tradeErrorOf(
      alice,
      "tradeAddItem",
      { tradeId, inventorySlot: coins, quantity: 1 },
      "add",
    );
    const accept = await tradeErrorOf(bob, "tradeAccept", { tradeId }, "accept");
    assert.deepEqual([add.reason, accept.reason], ["wrong_stage", "wrong_stage"]);
  });
  for (const side of ["asker", "asked"] as const) {
    it(`greets a new login of the ${side} of a pending request with player:sync first, then how it ended`, async () => {
      const alice = await connect();
      const bob = await connect();
      const incoming = bob.client.next("tradeIncoming");
      alice.client.send("tradeRequest", { targetPlayerId: bob.id });
      const { tradeId } = (await incoming).data;
      const [again, partner] = side === "asker" ? [alice, bob] : [bob, alice];
      const partnerTold = partner.client.next("tradeCancelled", (data) => data.tradeId === tradeId);
      const second = await WsClient.connect(server.wsUrl, { header: again.token });
      players.push({ ...again, client: second });
      await partnerTold;
      await second.received((frame) => frame.event === "tradeCancelled" && frame.data.tradeId === tradeId);
      assert.deepEqual(
        second.frames.slice(0, 2).map((frame) => frame.event),
        ["player:sync", "tradeCancelled"],
        "the contract's first message comes first",
      );
    });
  }

  it("tells a player whose second login replaced it mid-trade, on that login, that its trade ended", async () => {
    const alice = await connect();
    const bob = await connect();
    const tradeId = await startTrade(alice, bob);
    const partnerTold = bob.client.next("tradeCancelled");
    // The first session's trade shares its closing socket: the end reaches the login that replaced it.
    const second = await WsClient.connect(server.wsUrl, { header: alice.token });
    players.push({ ...alice, client: second });
    assert.deepEqual((await partnerTold).data, { tradeId, reason: "partner_disconnected" });
    const told = await second.received(
      (frame) => frame.event === "tradeCancelled" && frame.data.tradeId === tradeId,
    );
    assert.equal(told.data.reason, "disconnected");
  });

  it("lets a connection trade after the token it opened with has expired", async () => {
    // The connection was authenticated at its upgrade; it cannot present a fresh token afterwards.
    const subject = randomUUID();
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(subject)
      .setIssuer(SERVER_ISSUER)
      .setAudience(ANONYMOUS_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 2)
      .sign(server.runtime.jwtSecret);
    const client = await WsClient.connect(server.wsUrl, { header: token });
    const sync = (await client.first()).data as PlayerSync;
    const alice: WsPlayer = { client, sync, id: sync.id, token };
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
