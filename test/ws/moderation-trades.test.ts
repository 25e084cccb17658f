// An admin's /kick or /ban of a player in the middle of a trade, over /ws: at the offers, on the confirm
// screen, and racing the partner's last accept (sent a few ms apart, and with the swap held at each of
// its steps). No item is lost or made, the partner is told how the trade ended, and the removed player
// logs in again (after /unban) holding exactly its items, free to trade again.
import assert from "node:assert/strict";
import { isDeepStrictEqual as isDeepEqual } from "node:util";
import {
  afterSwap,
  type Holdings,
  holdings,
  ModeratedServer,
  type Removal,
  type SwapStep,
  together,
} from "../support/moderation.js";
import { sleep, waitForAsync } from "../support/players.js";
import type { TestServer } from "../support/server.js";
import { connectPlayer, type Frame, WsClient, type WsPlayer } from "../support/ws-client.js";

const ADMIN_CODE = "moderation-trades-admin-code";

describe("moderation: /kick and /ban of a player in a trade, over /ws", function () {
  this.timeout(20000);
  let moderated: ModeratedServer;
  let server: TestServer;
  const players: WsPlayer[] = [];
  const connect = async (token?: string) => {
    const player = await connectPlayer(server, 1, token);
    players.push(player);
    return player;
  };

  before(async function () {
    // Opening the embedded database takes long on a busy machine.
    this.timeout(120000);
    moderated = await ModeratedServer.start(ADMIN_CODE);
    server = moderated.server;
  });
  afterEach(async () => {
    moderated?.release?.();
    await Promise.all(players.splice(0).map((player) => player.client.close()));
  });
  after(() => moderated?.stop());

  /**
   * What the database holds of each once both have logged out: the world has let them go (the moderator
   * alone is left), so the REST API reads their rows, after their last saves.
   */
  async function storedAfterLogout(...both: WsPlayer[]): Promise<Holdings[]> {
    await Promise.all(both.map((player) => player.client.close()));
    await moderated.othersGone();
    return Promise.all(both.map((player) => moderated.restHoldings(player.token)));
  }

  /** `from` asks, `to` accepts: the trade's id once both have entered it. */
  async function startTrade(from: WsPlayer, to: WsPlayer): Promise<string> {
    const incoming = to.client.next("tradeIncoming", (data) => data.fromPlayerId === from.id);
    from.client.send("tradeRequest", { targetPlayerId: to.id });
    const { tradeId } = (await incoming).data;
    const entered = [from, to].map((player) =>
      player.client.next("tradeUpdated", (data) => data.tradeId === tradeId),
    );
    to.client.send("tradeRequestRespond", { tradeId, accept: true });
    await Promise.all(entered);
    return tradeId;
  }

  /** Offers some of the player's starter items; what was offered. */
  function offer(player: WsPlayer, tradeId: string, picks: Holdings): Holdings {
    for (const [itemId, quantity] of Object.entries(picks)) {
      const slot = player.sync.inventory.find((entry) => entry.itemId === itemId)!.slot;
      player.client.send("tradeAddItem", { tradeId, inventorySlot: slot, quantity });
    }
    return picks;
  }

  interface Pair {
    alice: WsPlayer;
    bob: WsPlayer;
    tradeId: string;
    aliceGives: Holdings;
    bobGives: Holdings;
    before: { alice: Holdings; bob: Holdings };
  }

  /** Alice and Bob in a trade with two items offered by each, both shown the four. */
  async function tradeWithOffers(): Promise<Pair> {
    const alice = await connect();
    const bob = await connect();
    const before = { alice: holdings(alice.sync), bob: holdings(bob.sync) };
    const tradeId = await startTrade(alice, bob);
    const shown = [alice, bob].map((player) =>
      player.client.next(
        "tradeUpdated",
        (data) => data.tradeId === tradeId && data.myOffer.length === 2 && data.theirOffer.length === 2,
      ),
    );
    const aliceGives = offer(alice, tradeId, { coins: 10, shrimps: 1 });
    const bobGives = offer(bob, tradeId, { coins: 7, bronze_pickaxe: 1 });
    await Promise.all(shown);
    return { alice, bob, tradeId, aliceGives, bobGives, before };
  }

  /** Both accept the offers: the confirm screen. */
  async function toConfirmScreen({ alice, bob, tradeId }: Pair): Promise<void> {
    const confirm = [alice, bob].map((player) => player.client.next("tradeConfirmScreen"));
    alice.client.send("tradeAccept", { tradeId });
    bob.client.send("tradeAccept", { tradeId });
    await Promise.all(confirm);
  }

  /** The trade's last event to `player`, within a few seconds (a hang fails here). */
  function outcomeFor(player: WsPlayer, tradeId: string): Promise<Frame> {
    return player.client.received(
      (frame) =>
        (frame.event === "tradeCompleted" || frame.event === "tradeCancelled") &&
        frame.data.tradeId === tradeId,
      4000,
    );
  }

  /** The admin's order, as its notice says it was carried out. */
  async function remove(removal: Removal, player: WsPlayer): Promise<void> {
    await moderated.remove(removal, player.sync.name);
  }

  /** The removed player's connection closed with 4403; a banned one is refused until /unban. Its new login. */
  async function backAfter(removal: Removal, player: WsPlayer): Promise<WsPlayer> {
    assert.equal((await player.client.closed).code, 4403);
    if (removal === "ban") {
      const refused = await WsClient.connect(`${server.wsUrl}?world=1`, { header: player.token });
      assert.equal((await refused.received((frame) => frame.event === "error")).data.code, "banned");
      await refused.closed;
      await moderated.unban(player.sync.name);
    }
    const back = await connect(player.token);
    assert.equal(back.id, player.id);
    return back;
  }

  /**
   * What each holds now (the one removed as its new login shows it, the other as the REST API does) is
   * what each held before, swapped when the partner was told the trade completed; and the two may trade
   * again, so neither is left in the trade.
   */
  async function checkHoldings(pair: Pair, back: WsPlayer, partner: WsPlayer, completed: boolean) {
    const { alice, aliceGives, bobGives, before } = pair;
    const expected = completed
      ? {
          alice: afterSwap(before.alice, aliceGives, bobGives),
          bob: afterSwap(before.bob, bobGives, aliceGives),
        }
      : before;
    const removedIsAlice = back.id === alice.id;
    const now = {
      alice: removedIsAlice ? holdings(back.sync) : await moderated.restHoldings(partner.token),
      bob: removedIsAlice ? await moderated.restHoldings(partner.token) : holdings(back.sync),
    };
    assert.deepEqual(
      together(now.alice, now.bob),
      together(before.alice, before.bob),
      "no item lost or made",
    );
    assert.deepEqual(now, expected, completed ? "the swap, once" : "nothing moved");

    const tradeId = await startTrade(partner, back);
    const cancelled = [partner, back].map((player) =>
      player.client.next("tradeCancelled", (data) => data.tradeId === tradeId),
    );
    back.client.send("tradeCancel", { tradeId });
    await Promise.all(cancelled);

    const [stored, storedPartner] = await storedAfterLogout(back, partner);
    assert.deepEqual(
      removedIsAlice ? { alice: stored, bob: storedPartner } : { alice: storedPartner, bob: stored },
      expected,
      "the database holds the same",
    );
  }

  for (const removal of ["kick", "ban"] as const) {
    it(`${removal}: during the offers, the partner is told partner_disconnected and nothing moves`, async () => {
      const pair = await tradeWithOffers();
      const { alice, bob, tradeId } = pair;
      const told = outcomeFor(bob, tradeId);
      await remove(removal, alice);
      const { data } = await told;
      assert.deepEqual(data, { tradeId, reason: "partner_disconnected" });
      await checkHoldings(pair, await backAfter(removal, alice), bob, false);
    });

    it(`${removal}: on the confirm screen, the partner's late accept is refused and nothing moves`, async () => {
      const pair = await tradeWithOffers();
      const { alice, bob, tradeId } = pair;
      await toConfirmScreen(pair);
      // Bob, who accepted the request, is the one removed; Alice has confirmed already.
      alice.client.send("tradeAccept", { tradeId });
      await alice.client.next("tradeUpdated", (data) => data.tradeId === tradeId && data.myAccepted);
      const told = outcomeFor(alice, tradeId);
      await remove(removal, bob);
      assert.deepEqual((await told).data, { tradeId, reason: "partner_disconnected" });
      alice.client.send("tradeAccept", { tradeId }, "late");
      const late = await alice.client.received((frame) => frame.id === "late");
      assert.equal(late.event, "tradeError", JSON.stringify(late.data));
      await checkHoldings(pair, await backAfter(removal, bob), alice, false);
    });
  }

  // The partner's last accept and the admin's order sent `offsetMs` apart (the order first when negative):
  // the swap either commits, once, before the removed player's last save, or is refused.
  for (const [removal, offsetMs] of [
    ["kick", -10],
    ["kick", 0],
    ["kick", 10],
    ["ban", -5],
    ["ban", 5],
  ] as const) {
    it(`${removal} ${offsetMs} ms from the partner's confirm: the trade completes once or not at all, told`, async () => {
      const pair = await tradeWithOffers();
      const { alice, bob, tradeId } = pair;
      await toConfirmScreen(pair);
      alice.client.send("tradeAccept", { tradeId });
      await bob.client.next("tradeUpdated", (data) => data.tradeId === tradeId && data.theirAccepted);
      const told = outcomeFor(bob, tradeId);
      const confirm = () => bob.client.send("tradeAccept", { tradeId });
      let removed: Promise<void>;
      if (offsetMs < 0) {
        removed = remove(removal, alice);
        await sleep(-offsetMs);
        confirm();
      } else {
        confirm();
        await sleep(offsetMs);
        removed = remove(removal, alice);
      }
      const outcome = await told;
      await removed;
      const completed = outcome.event === "tradeCompleted";
      if (!completed) assert.ok(outcome.data.reason, `a reason: ${JSON.stringify(outcome.data)}`);
      await checkHoldings(pair, await backAfter(removal, alice), bob, completed);
    });
  }

  /** Alice has confirmed; Bob's confirm reaches the swap, held at `where`. */
  async function confirmUpTo(pair: Pair, where: SwapStep): Promise<{ told: Promise<Frame> }> {
    const { alice, bob, tradeId } = pair;
    await toConfirmScreen(pair);
    alice.client.send("tradeAccept", { tradeId });
    await bob.client.next("tradeUpdated", (data) => data.tradeId === tradeId && data.theirAccepted);
    const held = moderated.holdSwap(where);
    const told = outcomeFor(bob, tradeId);
    bob.client.send("tradeAccept", { tradeId });
    await held;
    // Wrapped: an async function's promise would wait for the outcome it resolves with.
    return { told };
  }

  it("kick between the partner's confirm and the swap's check of the players: refused, the partner told why", async () => {
    const pair = await tradeWithOffers();
    const { alice, bob, tradeId } = pair;
    const { told } = await confirmUpTo(pair, "check");
    await remove("kick", alice);
    await waitForAsync(async () => (await moderated.playing()) === 2, "alice's session gone");
    moderated.release!();
    const error = await bob.client.next("tradeError", (data) => data.tradeId === tradeId);
    assert.equal(error.data.reason, "player_offline");
    assert.deepEqual((await told).data, { tradeId, reason: "commit_failed" });
    await checkHoldings(pair, await backAfter("kick", alice), bob, false);
  });

  for (const [removal, where] of [
    ["kick", "transaction"],
    ["ban", "outcome"],
    ["kick", "outcome"],
  ] as const) {
    it(`${removal} while the swap is under way (${where}): it completes once, the last save after it`, async () => {
      const pair = await tradeWithOffers();
      const { alice, bob } = pair;
      const { told } = await confirmUpTo(pair, where);
      await remove(removal, alice);
      await waitForAsync(async () => (await moderated.playing()) === 2, "alice's session gone");
      moderated.release!();
      const outcome = await told;
      assert.equal(outcome.event, "tradeCompleted", JSON.stringify(outcome.data));
      await checkHoldings(pair, await backAfter(removal, alice), bob, true);
    });
  }

  it("kick, and a new login while the swap is under way: the new session is shown the swap", async () => {
    const pair = await tradeWithOffers();
    const { alice, bob, aliceGives, bobGives, before } = pair;
    const { told } = await confirmUpTo(pair, "outcome");
    await remove("kick", alice);
    assert.equal((await alice.client.closed).code, 4403);
    const login = connect(alice.token);
    await sleep(200);
    moderated.release!();
    assert.equal((await told).event, "tradeCompleted");
    const back = await login;
    const swapped = afterSwap(before.alice, aliceGives, bobGives);
    const shown = await back.client.received(
      (frame) => frame.event === "player:sync" && isDeepEqual(holdings(frame.data), swapped),
      3000,
    );
    await checkHoldings(pair, { ...back, sync: shown.data }, bob, true);
  });
});
