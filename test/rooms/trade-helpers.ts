import assert from "node:assert/strict";
import type { Room } from "@colyseus/sdk";
import { Inbox, type SdkPlayer } from "../support/players.js";

/** A player with, once a trade started, its SDK connection to the trade's room and what came through it. */
export interface Trader extends SdkPlayer {
  trade?: Room;
  tradeInbox: Inbox;
}

export function asTrader(player: SdkPlayer): Trader {
  return Object.assign(player, { tradeInbox: new Inbox() });
}

const TRADE_OPENS_WITHIN_MS = 10_000;

/**
 * A requests, B accepts, and both join the trade's room, as an SDK client does on tradeStarted. The
 * waits allow for a first TradeRoom created on a loaded machine, which took over 5 s in a CI run.
 */
export async function startTrade(a: Trader, b: Trader): Promise<string> {
  a.room.send("tradeRequest", { targetPlayerId: b.id });
  const incoming = await b.inbox.next("tradeIncoming");
  assert.equal(incoming.fromPlayerId, a.id);
  assert.equal(incoming.fromPlayerName, a.sync.name);
  b.room.send("tradeRequestRespond", { tradeId: incoming.tradeId, accept: true });
  for (const [me, partner] of [
    [a, b],
    [b, a],
  ] as const) {
    const started = await me.inbox.next(
      "tradeStarted",
      (s) => s.tradeId === incoming.tradeId,
      TRADE_OPENS_WITHIN_MS,
      true,
    );
    assert.deepEqual(started, {
      tradeId: incoming.tradeId,
      partnerId: partner.id,
      partnerName: partner.sync.name,
    });
    me.trade = await me.sdk.joinById(started.tradeId);
    me.trade.onMessage("*", (event, data) => me.tradeInbox.push(String(event), data));
  }
  await Promise.all(
    [a, b].map((me) => me.tradeInbox.next("tradeUpdated", () => true, TRADE_OPENS_WITHIN_MS, true)),
  );
  return incoming.tradeId;
}
