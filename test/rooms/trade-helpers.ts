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

/** A requests, B accepts, and both join the trade's room, as an SDK client does on tradeStarted. */
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
    const started = await me.inbox.next("tradeStarted", (s) => s.tradeId === incoming.tradeId, 5000, true);
    assert.deepEqual(started, {
      tradeId: incoming.tradeId,
      partnerId: partner.id,
      partnerName: partner.sync.name,
    });
    me.trade = await me.sdk.joinById(started.tradeId);
    me.trade.onMessage("*", (event, data) => me.tradeInbox.push(String(event), data));
  }
  await Promise.all([a, b].map((me) => me.tradeInbox.next("tradeUpdated", () => true, 5000, true)));
  return incoming.tradeId;
}
