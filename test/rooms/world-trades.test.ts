import assert from "node:assert/strict";
import type { Trade } from "../../src/game/trade.js";
import { type TradeEndReason, TradeRequests, type TradeWorld } from "../../src/rooms/world-trades.js";

/**
 * A world of online players standing together, whose trade rooms open when `open` is called (or fail to,
 * when `fail` is).
 */
function worldWithSlowRooms() {
  const log: string[] = [];
  let open = () => {};
  let fail = (_error: Error) => {};
  const world: TradeWorld = {
    isOnline: () => true,
    nameOf: (id) => id.toUpperCase(),
    distance: () => 1,
    send: (to, event, data) =>
      log.push(
        event === "tradeCancelled"
          ? `${to} ${event} ${(data as { reason: string }).reason}`
          : `${to} ${event}`,
      ),
    openTradeRoom: (_trade: Trade) =>
      new Promise<void>((resolve, reject) => {
        open = resolve;
        fail = reject;
      }),
    cancelStarted: (tradeId: string, playerId: string, reason: TradeEndReason) =>
      log.push(`cancel ${tradeId} for ${playerId}: ${reason}`),
  };
  return { world, log, open: () => open(), fail: (error: Error) => fail(error) };
}

/** Alice requests Bob, and Bob accepts: the trade's room is opening until `open`. */
function acceptedWhileOpening() {
  const { world, log, open, fail } = worldWithSlowRooms();
  const trades = new TradeRequests(world);
  let tradeId = "";
  trades.request("alice", "bob", 0, (event, data) => {
    if (event === "tradeRequestSent") tradeId = (data as { tradeId: string }).tradeId;
  });
  const accepted = trades.respond("bob", tradeId, true, 1, (event) => log.push(`bob ${event}`));
  return { trades, log, open, fail, accepted, tradeId };
}

describe("TradeRequests: a trade whose room is still opening", () => {
  it("takes a tradeCancel sent meanwhile, and cancels through the room once it is open", async () => {
    const { trades, log, open, accepted, tradeId } = acceptedWhileOpening();
    assert.equal(
      trades.cancel("alice", tradeId, 2, () => {}),
      undefined,
    );
    assert.ok(!log.some((line) => line.startsWith("cancel")), "no room to cancel through yet");
    open();
    assert.equal(await accepted, undefined);
    const started = log.indexOf("alice tradeStarted");
    const cancelled = log.indexOf(`cancel ${tradeId} for alice: cancelled`);
    assert.ok(started >= 0 && cancelled > started, log.join("\n"));
  });

  it("ends it once it is open when a player drops meanwhile, and cancels it once", async () => {
    const { trades, log, open, accepted, tradeId } = acceptedWhileOpening();
    trades.playerGone("bob", "partner_disconnected");
    trades.cancel("alice", tradeId, 2, () => {});
    open();
    await accepted;
    assert.deepEqual(
      log.filter((line) => line.startsWith("cancel")),
      [`cancel ${tradeId} for bob: partner_disconnected`],
    );
  });
});

describe("TradeRequests: a trade whose room cannot be opened", () => {
  it("tells both players it is over, and leaves both free to trade again", async () => {
    const { trades, log, fail, accepted } = acceptedWhileOpening();
    fail(new Error("the coordination store did not answer"));
    await assert.rejects(accepted, /did not answer/);
    assert.deepEqual(log.slice(1), [
      "alice tradeCancelled commit_failed",
      "bob tradeCancelled commit_failed",
    ]);
    assert.equal(trades.tradeOf("alice"), undefined);
    assert.equal(
      trades.request("alice", "bob", 2, () => {}),
      undefined,
      "a new request between them is taken",
    );
  });
});

describe("TradeRequests: a request nobody answers", () => {
  it("expires after 30 s for both players, and can then be neither accepted nor cancelled", () => {
    const { world, log } = worldWithSlowRooms();
    const trades = new TradeRequests(world);
    let tradeId = "";
    trades.request("alice", "bob", 1000, (event, data) => {
      if (event === "tradeRequestSent") tradeId = (data as { tradeId: string }).tradeId;
    });
    trades.expire(1000 + 29_999);
    assert.deepEqual(log, ["bob tradeIncoming"], "still pending a moment before 30 s");
    trades.expire(1000 + 30_000);
    assert.deepEqual(log, [
      "bob tradeIncoming",
      "alice tradeCancelled expired",
      "bob tradeCancelled expired",
    ]);
    assert.equal(
      trades.cancel("alice", tradeId, 31_001, () => {}),
      "not_found",
    );
    return trades
      .respond("bob", tradeId, true, 31_001, () => {})
      .then((refusal) => {
        assert.equal(refusal, "not_found");
      });
  });
});
