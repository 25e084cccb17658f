// An admin's /kick or /ban of a player in the middle of a trade, both traders Colyseus SDK clients: at the
// offers, on the confirm screen, racing the last accept (the partner's, or the removed player's own on its
// trade connection, which the removal leaves open), with the swap held at each of its steps, and while
// the trade's room still opens. No item is lost or made, the partner is told how the trade ended, the
// removed player's trade connection hears the same and is let go, and the removed player logs in again
// (after /unban) holding exactly its items, free to trade again.
import assert from "node:assert/strict";
import { isDeepStrictEqual as isDeepEqual } from "node:util";
import type { Room } from "@colyseus/sdk";
import type { PlayerSync } from "../../src/game/world-types.js";
import { within } from "../../src/limits/time-limit.js";
import { TradeRoom } from "../../src/rooms/TradeRoom.js";
import {
  afterSwap,
  type Holdings,
  holdings,
  ModeratedServer,
  type Removal,
  type SwapStep,
  together,
} from "../support/moderation.js";
import { Inbox, joinAsNewPlayer, leave, sleep, waitForAsync } from "../support/players.js";
import type { TestServer } from "../support/server.js";
import { asTrader, startTrade, type Trader } from "./trade-helpers.js";
import { slotOf, waitFor } from "./world-helpers.js";

const ADMIN_CODE = "moderation-trades-sdk-admin-code";
const ENDS = ["tradeCompleted", "tradeCancelled"];

type Ending = Inbox["received"][number];
/** A trader with the close codes of its two connections: the world's, and the trade room's once joined. */
interface Party extends Trader {
  worldLeft: Promise<number>;
  tradeLeft?: Promise<number>;
}

const closeOf = (room: Room) => new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));

describe("moderation: /kick and /ban of a player in a trade, SDK clients", function () {
  this.timeout(20000);
  let moderated: ModeratedServer;
  let server: TestServer;
  const parties: Party[] = [];

  const join = async (token?: string): Promise<Party> => {
    const player = asTrader(await joinAsNewPlayer(server, token));
    const party = Object.assign(player, { worldLeft: closeOf(player.room) });
    parties.push(party);
    return party;
  };

  before(async function () {
    // Opening the embedded database takes long on a busy machine.
    this.timeout(120000);
    moderated = await ModeratedServer.start(ADMIN_CODE);
    server = moderated.server;
  });
  afterEach(async () => {
    moderated?.release?.();
    await Promise.all(parties.splice(0).flatMap((party) => [leave(party.trade), leave(party.room)]));
  });
  after(() => moderated?.stop());

  /** What the database holds of each once both left the world (the moderator alone is left in it). */
  async function storedAfterLogout(a: Party, b: Party): Promise<[Holdings, Holdings]> {
    await Promise.all([a, b].flatMap((party) => [leave(party.trade), leave(party.room)]));
    await moderated.othersGone();
    return Promise.all([moderated.restHoldings(a.token), moderated.restHoldings(b.token)]);
  }

  /** `from` asks, `to` accepts, both join the trade's room: its id. */
  async function trade(from: Party, to: Party): Promise<string> {
    const tradeId = await startTrade(from, to);
    for (const party of [from, to]) party.tradeLeft = closeOf(party.trade!);
    return tradeId;
  }

  /** Joins the trade's room, as an SDK client does on tradeStarted. */
  async function enter(party: Party, tradeId: string): Promise<void> {
    party.trade = await party.sdk.joinById(tradeId);
    party.tradeLeft = closeOf(party.trade);
    party.trade.onMessage("*", (event, data) => party.tradeInbox.push(String(event), data));
  }

  function offer(party: Party, tradeId: string, picks: Holdings): Holdings {
    for (const [itemId, quantity] of Object.entries(picks))
      party.trade!.send("tradeAddItem", { tradeId, inventorySlot: slotOf(party.sync, itemId), quantity });
    return picks;
  }

  type Pair = Awaited<ReturnType<typeof tradeWithOffers>>;

  /** Alice and Bob in a trade with two items offered by each, both shown the four. */
  async function tradeWithOffers() {
    const alice = await join();
    const bob = await join();
    const before = { alice: holdings(alice.sync), bob: holdings(bob.sync) };
    const tradeId = await trade(alice, bob);
    const shown = [alice, bob].map((party) =>
      party.tradeInbox.next(
        "tradeUpdated",
        (data) => data.myOffer.length === 2 && data.theirOffer.length === 2,
      ),
    );
    const aliceGives = offer(alice, tradeId, { coins: 10, shrimps: 1 });
    const bobGives = offer(bob, tradeId, { coins: 7, bronze_pickaxe: 1 });
    await Promise.all(shown);
    return { alice, bob, tradeId, aliceGives, bobGives, before };
  }

  /** Both accept the offers: the confirm screen. */
  async function toConfirmScreen({ alice, bob, tradeId }: Pair): Promise<void> {
    const confirm = [alice, bob].map((party) => party.tradeInbox.next("tradeConfirmScreen"));
    alice.trade!.send("tradeAccept", { tradeId });
    bob.trade!.send("tradeAccept", { tradeId });
    await Promise.all(confirm);
  }

  /** The trade's last events to the player, on its trade connection or its world connection. */
  const endings = (party: Party, tradeId: string): Ending[] =>
    [...party.tradeInbox.received, ...party.inbox.received].filter(
      ({ event, data }) => ENDS.includes(event) && data?.tradeId === tradeId,
    );

  /** How the trade ended for the player, within a few seconds (a hang fails here). */
  async function outcomeFor(party: Party, tradeId: string, timeoutMs = 6000): Promise<Ending> {
    await waitFor(() => endings(party, tradeId).length > 0, `${party.sync.name} told`, timeoutMs);
    return endings(party, tradeId)[0]!;
  }

  /** The admin's order, as its notice says it was carried out; resolves once the session is gone. */
  async function remove(removal: Removal, party: Party): Promise<void> {
    const { name } = party.sync;
    await moderated.remove(removal, name);
    // The moderator and the partner play on.
    await waitForAsync(async () => (await moderated.playing()) === 2, `${name}'s session gone`);
  }

  /**
   * The removed player's trade connection, left open by the removal, heard the end its partner heard
   * (`disconnected` for `partner_disconnected`), once, and was let go as consented.
   */
  async function letGo(removed: Party, tradeId: string, partnerHeard: Ending): Promise<void> {
    assert.equal(await within(removed.tradeLeft!, 3000, "still open"), 4000, "the trade connection let go");
    const said = ({ event, data }: Ending) => (event === "tradeCancelled" ? data.reason : event);
    const expected = said(partnerHeard) === "partner_disconnected" ? "disconnected" : said(partnerHeard);
    assert.deepEqual(endings(removed, tradeId).map(said), [expected]);
  }

  /** Its world connection closed with 4403; a banned one is refused until /unban. Its new login. */
  async function backAfter(removal: Removal, party: Party): Promise<Party> {
    assert.equal(await within(party.worldLeft, 3000, "still open"), 4403);
    const { name } = party.sync;
    if (removal === "ban") {
      await assert.rejects(joinAsNewPlayer(server, party.token), /an admin banned this account/);
      await moderated.unban(name);
    }
    const back = await join(party.token);
    assert.equal(back.id, party.id);
    return back;
  }

  /**
   * The partner was told once; what each holds now (the one removed as its new login shows it, the other
   * as the REST API does) is what each held before, swapped when the partner was told the trade completed;
   * the two can trade again; the database holds the same once they have left.
   */
  async function checkHoldings(pair: Pair, back: Party, partner: Party, completed: boolean) {
    const { alice, aliceGives, bobGives, before, tradeId } = pair;
    assert.equal(endings(partner, tradeId).length, 1, "the partner is told once");
    const expected = completed
      ? {
          alice: afterSwap(before.alice, aliceGives, bobGives),
          bob: afterSwap(before.bob, bobGives, aliceGives),
        }
      : before;
    const byName = (removed: Holdings, other: Holdings) =>
      back.id === alice.id ? { alice: removed, bob: other } : { alice: other, bob: removed };
    const now = byName(holdings(back.sync), await moderated.restHoldings(partner.token));
    const total = (both: { alice: Holdings; bob: Holdings }) => together(both.alice, both.bob);
    assert.deepEqual(total(now), total(before), "no item lost or made");
    assert.deepEqual(now, expected, completed ? "the swap, once" : "nothing moved");

    partner.tradeInbox = new Inbox();
    const again = await trade(partner, back);
    back.trade!.send("tradeCancel", { tradeId: again });
    const cancelled = { tradeId: again, reason: "cancelled" };
    for (const party of [partner, back])
      assert.deepEqual(await party.tradeInbox.next("tradeCancelled", () => true, 5000, true), cancelled);

    const [stored, storedPartner] = await storedAfterLogout(back, partner);
    assert.deepEqual(byName(stored, storedPartner), expected, "the database holds the same");
  }

  for (const removal of ["kick", "ban"] as const) {
    it(`${removal}: during the offers, the partner is told partner_disconnected and nothing moves`, async () => {
      const pair = await tradeWithOffers();
      const { alice, bob, tradeId } = pair;
      await remove(removal, alice);
      const told = await outcomeFor(bob, tradeId);
      assert.deepEqual(told.data, { tradeId, reason: "partner_disconnected" });
      await letGo(alice, tradeId, told);
      assert.equal(await within(bob.tradeLeft!, 3000, "still open"), 4000, "nothing left to accept in");
      await checkHoldings(pair, await backAfter(removal, alice), bob, false);
    });

    it(`${removal}: on the confirm screen, after the partner's confirm, nothing moves`, async () => {
      const pair = await tradeWithOffers();
      const { alice, bob, tradeId } = pair;
      await toConfirmScreen(pair);
      // Bob, who accepted the request, is the one removed; Alice has confirmed already.
      alice.trade!.send("tradeAccept", { tradeId });
      await alice.tradeInbox.next("tradeUpdated", (data) => data.myAccepted);
      await remove(removal, bob);
      const told = await outcomeFor(alice, tradeId);
      assert.deepEqual(told.data, { tradeId, reason: "partner_disconnected" });
      await letGo(bob, tradeId, told);
      await checkHoldings(pair, await backAfter(removal, bob), alice, false);
    });
  }

  // The last accept and the admin's order sent `offsetMs` apart (the order first when negative). The last
  // accept is the partner's, or the removed player's own, on the trade connection the removal leaves open.
  // The swap either commits, once, before the removed player's last save, or is refused.
  for (const [removal, last, offsetMs] of [
    ["kick", "partner", -10],
    ["kick", "partner", 0],
    ["kick", "partner", 10],
    ["ban", "partner", -5],
    ["ban", "partner", 5],
    ["kick", "removed", 0],
    ["kick", "removed", 10],
    ["ban", "removed", 5],
  ] as const) {
    const whose = last === "partner" ? "the partner's" : "the removed player's own";
    it(`${removal} ${offsetMs} ms from ${whose} last accept: the trade completes once or not at all, told`, async () => {
      const pair = await tradeWithOffers();
      const { alice, bob, tradeId } = pair;
      await toConfirmScreen(pair);
      const [first, lastOne] = last === "partner" ? [alice, bob] : [bob, alice];
      first.trade!.send("tradeAccept", { tradeId });
      await lastOne.tradeInbox.next("tradeUpdated", (data) => data.theirAccepted);
      const removed = (offsetMs > 0 ? sleep(offsetMs) : Promise.resolve()).then(() => remove(removal, alice));
      if (offsetMs < 0) await sleep(-offsetMs);
      // As a client would: nothing is sent on a connection the room has let go.
      if (lastOne.trade!.connection.isOpen) lastOne.trade!.send("tradeAccept", { tradeId });
      const outcome = await outcomeFor(bob, tradeId);
      await removed;
      const completed = outcome.event === "tradeCompleted";
      if (!completed) assert.ok(outcome.data.reason, `a reason: ${JSON.stringify(outcome.data)}`);
      await letGo(alice, tradeId, outcome);
      await checkHoldings(pair, await backAfter(removal, alice), bob, completed);
    });
  }

  /** Alice has confirmed; Bob's confirm reaches the swap, held at `where`. */
  async function confirmUpTo(pair: Pair, where: SwapStep): Promise<{ told: Promise<Ending> }> {
    const { alice, bob, tradeId } = pair;
    await toConfirmScreen(pair);
    alice.trade!.send("tradeAccept", { tradeId });
    await bob.tradeInbox.next("tradeUpdated", (data) => data.theirAccepted);
    const held = moderated.holdSwap(where);
    const told = outcomeFor(bob, tradeId);
    bob.trade!.send("tradeAccept", { tradeId });
    await held;
    // Wrapped: an async function's promise would wait for the outcome it resolves with.
    return { told };
  }

  it("kick between the partner's confirm and the swap's check of the players: refused, both told why", async () => {
    const pair = await tradeWithOffers();
    const { alice, bob, tradeId } = pair;
    const { told } = await confirmUpTo(pair, "check");
    await remove("kick", alice);
    moderated.release!();
    const outcome = await told;
    assert.deepEqual(outcome.data, { tradeId, reason: "commit_failed" });
    for (const party of [alice, bob])
      assert.equal(party.tradeInbox.last("tradeError")?.reason, "player_offline", party.sync.name);
    await letGo(alice, tradeId, outcome);
    await checkHoldings(pair, await backAfter("kick", alice), bob, false);
  });

  for (const [removal, where] of [
    ["kick", "transaction"],
    ["ban", "outcome"],
    ["kick", "outcome"],
  ] as const) {
    it(`${removal} while the swap is under way (${where}): it completes once, the last save after it`, async () => {
      const pair = await tradeWithOffers();
      const { alice, bob, tradeId } = pair;
      const { told } = await confirmUpTo(pair, where);
      await remove(removal, alice);
      moderated.release!();
      const outcome = await told;
      assert.equal(outcome.event, "tradeCompleted", JSON.stringify(outcome.data));
      await letGo(alice, tradeId, outcome);
      await checkHoldings(pair, await backAfter(removal, alice), bob, true);
    });
  }

  it("kick, and a new login while the swap is under way: the new session is shown the swap", async () => {
    const pair = await tradeWithOffers();
    const { alice, bob, aliceGives, bobGives, before, tradeId } = pair;
    const { told } = await confirmUpTo(pair, "outcome");
    await remove("kick", alice);
    assert.equal(await alice.worldLeft, 4403);
    const login = join(alice.token);
    await sleep(200);
    moderated.release!();
    const outcome = await told;
    assert.equal(outcome.event, "tradeCompleted");
    await letGo(alice, tradeId, outcome);
    const back = await login;
    const swapped = afterSwap(before.alice, aliceGives, bobGives);
    const shown = await back.inbox.next<PlayerSync>(
      "player:sync",
      (sync) => isDeepEqual(holdings(sync), swapped),
      3000,
      true,
    );
    await checkHoldings(pair, Object.assign(back, { sync: shown }), bob, true);
  });

  // The kick lands while the trade's room opens: while the world creates it (before tradeStarted), or
  // once both were told tradeStarted, racing their joins. Each client joins once told the trade started.
  for (const when of ["while the world opens its room", "after tradeStarted, before the joins"] as const) {
    it(`kick ${when}: the trade ends for both, nothing moves`, async () => {
      const alice = await join();
      const bob = await join();
      const before = { alice: holdings(alice.sync), bob: holdings(bob.sync) };
      alice.room.send("tradeRequest", { targetPlayerId: bob.id });
      const { tradeId } = await bob.inbox.next("tradeIncoming");
      const opening =
        when === "while the world opens its room"
          ? moderated.holdOnce(TradeRoom.prototype, "onCreate")
          : undefined;
      bob.room.send("tradeRequestRespond", { tradeId, accept: true });
      const started = async (party: Party) => {
        const told = party.inbox.next("tradeStarted", (data) => data.tradeId === tradeId, 5000, true);
        told.catch(() => {});
        // Nothing more comes on a world connection once it has closed.
        await Promise.race([told, party.worldLeft]);
        if (!party.inbox.all("tradeStarted").some((data) => data.tradeId === tradeId))
          throw new Error(`${party.sync.name} was not told the trade started`);
      };
      if (opening) {
        await opening;
        await remove("kick", alice);
        moderated.release!();
      } else await Promise.all([alice, bob].map(started));
      const removed = opening ? Promise.resolve() : remove("kick", alice);
      const joins = await Promise.allSettled(
        [alice, bob].map((party) => started(party).then(() => enter(party, tradeId))),
      );
      await removed;
      const told = await outcomeFor(bob, tradeId);
      assert.deepEqual(told.data, { tradeId, reason: "partner_disconnected" });
      // A trade connection that joined is let go once the trade has ended, and the kicked player's, whose
      // world connection is gone, hears there how the trade ended.
      for (const [index, party] of [alice, bob].entries()) {
        if (joins[index]!.status === "rejected") continue;
        assert.equal(await within(party.tradeLeft!, 3000, "still open"), 4000, `${party.sync.name}'s`);
      }
      if (joins[0]!.status === "fulfilled")
        assert.deepEqual(alice.tradeInbox.all("tradeCancelled"), [{ tradeId, reason: "disconnected" }]);
      const pair = { alice, bob, tradeId, aliceGives: {}, bobGives: {}, before };
      await checkHoldings(pair, await backAfter("kick", alice), bob, false);
    });
  }
});
