// A trade between two characters of one account (a main and its alt): only a trade with oneself is refused
// (self_trade), so each character's client enters its own side. The trade's room used to seat any client of
// the account as the first side it found.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import { GENEROUS_LIMITS } from "../api/support.js";
import { plainCharacter } from "../support/characters.js";
import { joinAsNewPlayer, leave, sleep } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { WsClient } from "../support/ws-client.js";
import { asTrader, type Trader } from "./trade-helpers.js";

describe("a trade between two characters of one account", function () {
  this.timeout(40000);
  let server: TestServer;
  const traders: Trader[] = [];
  const sockets: WsClient[] = [];
  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100", ...GENEROUS_LIMITS });
  });
  afterEach(async () => {
    await Promise.all(traders.splice(0).flatMap((t) => [leave(t.trade), leave(t.room)]));
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });
  after(() => server?.stop());

  /** A second character of the token's account, standing where `near` stands, holding 50 coins in slot 0. */
  async function secondCharacter(subject: string, near: PlayerSync): Promise<string> {
    const account = await server.runtime.accounts.findOrCreate(subject, "anonymous");
    const altId = randomUUID();
    await server.runtime.characters.create(
      account.id,
      plainCharacter(altId, {
        name: `Alt${Math.floor(Math.random() * 1e6)}`,
        position: { ...near.position },
        inventory: [{ slot: 0, itemId: "coins", quantity: 50 }],
      }),
    );
    return altId;
  }

  it("(SDK) lets each character join the trade's room as itself, naming it, and see the other's offer", async () => {
    const { token, subject } = await issueAnonymousToken(server.runtime.jwtSecret);
    const main = asTrader(await joinAsNewPlayer(server, token));
    traders.push(main);
    const altId = await secondCharacter(subject, main.sync);
    const alt = asTrader(await joinAsNewPlayer(server, token, { characterId: altId }));
    traders.push(alt);
    assert.equal(alt.id, altId);

    main.room.send("tradeRequest", { targetPlayerId: alt.id });
    const incoming = await alt.inbox.next("tradeIncoming");
    alt.room.send("tradeRequestRespond", { tradeId: incoming.tradeId, accept: true });
    const { tradeId } = await alt.inbox.next("tradeStarted", () => true, 5000, true);
    await main.inbox.next("tradeStarted", () => true, 5000, true);

    // One client of the account without naming its character: which side it plays cannot be told.
    await assert.rejects(alt.sdk.joinById(tradeId), /characterId/);
    // The alt's client enters first (an SDK client does so on tradeStarted), then the main's.
    for (const me of [alt, main]) {
      me.trade = await me.sdk.joinById(tradeId, { characterId: me.id });
      me.trade.onMessage("*", (event, data) => me.tradeInbox.push(String(event), data));
    }
    alt.trade!.send("tradeAddItem", { tradeId, inventorySlot: 0, quantity: 50 });
    const seen = await main.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1);
    assert.deepEqual(seen.theirOffer, [{ inventorySlot: 0, itemId: "coins", quantity: 50 }]);
  });

  it("(/ws) lets each character's connection enter the trade, instead of one of them never getting in", async () => {
    const { token, subject } = await issueAnonymousToken(server.runtime.jwtSecret);
    const main = await WsClient.connect(server.wsUrl, { header: token });
    sockets.push(main);
    const mainSync = (await main.first()).data as PlayerSync;
    const altId = await secondCharacter(subject, mainSync);
    const alt = await WsClient.connect(`${server.wsUrl}?characterId=${altId}`, { header: token });
    sockets.push(alt);
    assert.equal((await alt.first()).data.id, altId);

    const incoming = alt.next("tradeIncoming");
    main.send("tradeRequest", { targetPlayerId: altId });
    const tradeId = (await incoming).data.tradeId;
    const started = [main.next("tradeStarted"), alt.next("tradeStarted")];
    alt.send("tradeRequestRespond", { tradeId, accept: true });
    await Promise.all(started);
    await sleep(500);
    // The alt offers its 50 coins: the main should see them as the partner's offer.
    const answer = alt.next("tradeUpdated", () => true).catch(() => undefined);
    const error = alt.next("tradeError", () => true).catch(() => undefined);
    alt.send("tradeAddItem", { tradeId, inventorySlot: 0, quantity: 50 }, "alt-add");
    const [updated, refused] = await Promise.all([answer, error]);
    assert.equal(refused, undefined, `the alt's offer is refused: ${JSON.stringify(refused?.data)}`);
    assert.deepEqual(updated?.data.myOffer, [{ inventorySlot: 0, itemId: "coins", quantity: 50 }]);
  });
});
