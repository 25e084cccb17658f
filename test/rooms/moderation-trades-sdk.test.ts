// An admin's /kick or /ban of a player in the middle of a trade, both traders Colyseus SDK clients: at the
// offers, on the confirm screen, racing the last accept (the partner's, or the removed player's own on its
// trade connection, which the removal leaves open), with the swap held at each of its steps, and while
// the trade's room still opens. No item is lost or made, the partner is told how the trade ended, the
// removed player's trade connection hears the same and is let go, and the removed player logs in again
// (after /unban) holding exactly its items, free to trade again.
import assert from "node:assert/strict";
import { isDeepStrictEqual as isDeepEqual } from "node:util";
import { matchMaker } from "@colyseus/core";
import type { Room } from "@colyseus/sdk";
import type { PlayerSync } from "../../src/game/world-types.js";
import { within } from "../../src/limits/time-limit.js";
import { TradeRoom } from "../../src/rooms/TradeRoom.js";
import { GENEROUS_LIMITS, request } from "../api/support.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { Inbox, joinAsNewPlayer, leave, sleep, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, type WsPlayer } from "../support/ws-client.js";
import { asTrader, startTrade, type Trader } from "./trade-helpers.js";
import { slotOf, waitFor } from "./world-helpers.js";

const ADMIN_CODE = "moderation-trades-sdk-admin-code";
const ENDS = ["tradeCompleted", "tradeCancelled"];

/** Units of each item a player holds: inventory, bank and equipment. */
type Holdings = Record<string, number>;
/** An item and a number of its units. */
type Units = [string, number];
type Removal = "kick" | "ban";
type SwapStep = "check" | "transaction" | "outcome";
type Ending = Inbox["received"][number];
/** A trader with the close codes of its two connections: the world's, and the trade room's once joined. */
interface Party extends Trader {
  worldLeft: Promise<number>;
  tradeLeft?: Promise<number>;
}

const closeOf = (room: Room) => new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));

describe("moderation: /kick and /ban of a player in a trade, SDK clients", function () {
  this.timeout(20000);
  let server: TestServer;
  let dropDatabase: (() => Promise<void>) | undefined;
  let moderator: WsPlayer;
  /** Lets a swap held by holdSwap, or a trade room's opening, held by holdOnce, go on. */
  let release: (() => void) | undefined;
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
    // The swap's row locks and the last saves meet in PostgreSQL when the run has one.
    const fresh = postgresUrl ? await freshDatabaseUrl(postgresUrl) : undefined;
    dropDatabase = fresh?.drop;
    server = await startTestServer({
      WORLD_TICK_MS: "100",
      ADMIN_CODE,
      ...GENEROUS_LIMITS,
      ...(fresh && { DATABASE_URL: fresh.url }),
    });
    // The moderator is a /ws client: its commands' answers echo their request ids.
    moderator = await connectPlayer(server, 1);
    moderator.client.send("player:chat", { message: `/admin ${ADMIN_CODE}` }, "admin");
    await moderator.client.next("chat:message", (_data, frame) => frame.id === "admin");
  });
  afterEach(async () => {
    release?.();
    await Promise.all(parties.splice(0).flatMap((party) => [leave(party.trade), leave(party.room)]));
  });
  after(async () => {
    await moderator?.client.close();
    await server?.stop();
    await dropDatabase?.();
  });

  /** Sends an admin command and returns the server's notice. */
  async function command(message: string): Promise<string> {
    const id = `command-${Math.random()}`;
    moderator.client.send("player:chat", { message }, id);
    const answer = await moderator.client.received((frame) => frame.id === id);
    assert.equal(answer.event, "chat:message", `${message}: ${JSON.stringify(answer.data)}`);
    return answer.data.message;
  }

  /** `held` with the units of `entries` added (taken away when `sign` is -1), items down to none left out. */
  function tally(held: Holdings, entries: Units[], sign = 1): Holdings {
    const units = { ...held };
    for (const [itemId, quantity] of entries) units[itemId] = (units[itemId] ?? 0) + sign * quantity;
    return Object.fromEntries(Object.entries(units).filter(([, quantity]) => quantity !== 0));
  }

  function holdings(sync: Pick<PlayerSync, "inventory" | "bank" | "equipment">): Holdings {
    const stacks = [...sync.inventory, ...sync.bank].map((entry): Units => [entry.itemId, entry.quantity]);
    const equipped = Object.values(sync.equipment).map((itemId): Units => [itemId!, 1]);
    return tally({}, [...stacks, ...equipped]);
  }

  /** `held` less what was given plus what was received. */
  const afterSwap = (held: Holdings, given: Holdings, received: Holdings) =>
    tally(tally(held, Object.entries(given), -1), Object.entries(received));

  /** The player's state as the REST API gives it: durable, the world's while it plays. */
  async function restHoldings(party: Party): Promise<Holdings> {
    const response = await request(server, "/api/v1/player", { token: party.token });
    assert.equal(response.status, 200, await response.clone().text());
    return holdings(await response.json());
  }

  /** What the database holds of each once both left the world (the moderator alone is left in it). */
  async function storedAfterLogout(a: Party, b: Party): Promise<[Holdings, Holdings]> {
    await Promise.all([a, b].flatMap((party) => [leave(party.trade), leave(party.room)]));
    await waitForAsync(async () => {
      const response = await request(server, "/api/v1/world", { token: moderator.token });
      return (await response.json()).entities.players === 1;
    }, "the players' departures");
    return Promise.all([restHoldings(a), restHoldings(b)]);
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
    const notice = await command(removal === "kick" ? `/kick ${name}` : `/ban ${name} 30`);
    assert.equal(
      notice,
      removal === "kick"
        ? `${name} was removed from world 1; they may log in again.`
        : `${name} is banned for 30 minutes, and was removed from world 1.`,
    );
    // The moderator and the partner play on.
    await waitForAsync(async () => (await playing()) === 2, `${name}'s session gone`);
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
      assert.equal(await command(`/unban ${name}`), `${name} may log in again.`);
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
    const now = byName(holdings(back.sync), await restHoldings(partner));
    const total = (both: { alice: Holdings; bob: Holdings }) => tally(both.alice, Object.entries(both.bob));
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

  /** How many sessions play in the world (a player removed leaves them at once, its save may follow). */
  async function playing(): Promise<number> {
    const response = await request(server, "/api/v1/world", { token: moderator.token });
    return (await response.json()).playersOnline;
  }

  /**
   * Holds the next call of `target[method]` until release: before it runs, or once it has returned when
   * `after`. Resolves once the call waits there.
   */
  function holdOnce(target: object, method: string, after = false): Promise<void> {
    const methods = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = methods[method]!;
    const own = Object.hasOwn(target, method);
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    return new Promise((reached) => {
      methods[method] = async function (this: unknown, ...args: unknown[]) {
        if (own) methods[method] = original;
        else Reflect.deleteProperty(target, method);
        const wait = () => {
          reached();
          return released;
        };
        if (!after) await wait();
        const result = await original.apply(this, args);
        if (after) await wait();
        return result;
      };
    });
  }

  /**
   * Pins the next swap at one point: before the world checks that both still play ("check"), in the swap
   * before its transaction ("transaction"), or after its transaction committed, before the world takes
   * its outcome in ("outcome").
   */
  async function holdSwap(where: SwapStep): Promise<void> {
    const [world] = await matchMaker.query({ name: "world" });
    if (where === "check") return holdOnce(matchMaker.getLocalRoomById(world!.roomId)!, "commitTrade");
    return holdOnce(server.runtime.worldTrades, "complete", where === "outcome");
  }

  /** Alice has confirmed; Bob's confirm reaches the swap, held at `where`. */
  async function confirmUpTo(pair: Pair, where: SwapStep): Promise<{ told: Promise<Ending> }> {
    const { alice, bob, tradeId } = pair;
    await toConfirmScreen(pair);
    alice.trade!.send("tradeAccept", { tradeId });
    await bob.tradeInbox.next("tradeUpdated", (data) => data.theirAccepted);
    const held = holdSwap(where);
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
    release!();
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
      release!();
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
    release!();
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
        when === "while the world opens its room" ? holdOnce(TradeRoom.prototype, "onCreate") : undefined;
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
        release!();
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
