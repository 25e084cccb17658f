// Trades against second logins and hops that come at the same moment: the coins move once or not at
// all, and each session is shown what is stored.
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { groundItems } from "../../src/db/schema.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { sleep } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, type WsClient, type WsPlayer } from "../support/ws-client.js";

describe("trades against second logins and hops at the same moment (WORLDS=2)", function () {
  this.timeout(120000);
  let server: TestServer;
  let done: () => Promise<void>;
  const players: WsPlayer[] = [];

  before(async () => {
    const fresh = postgresUrl ? await freshDatabaseUrl(postgresUrl) : undefined;
    server = await startTestServer({
      WORLDS: "2",
      WORLD_TICK_MS: "100",
      ...(fresh && { DATABASE_URL: fresh.url }),
    });
    done = async () => {
      await server.stop();
      await fresh?.drop();
    };
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
  });
  after(() => done?.());

  const join = async (world?: number, token?: string) => {
    const player = await connectPlayer(server, world, token);
    players.push(player);
    return player;
  };
  const coinsIn = (sync: any) =>
    (sync.inventory as any[]).filter((e) => e.itemId === "coins").reduce((sum, e) => sum + e.quantity, 0);
  const stored = async (id: string) => coinsIn(await server.runtime.characters.load(id));

  /** Alice offers `quantity` coins to Bob; both accept once: the confirm screen. Returns the trade id. */
  async function toConfirm(alice: WsPlayer, bob: WsPlayer, quantity: number): Promise<string> {
    const incoming = bob.client.next("tradeIncoming");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const tradeId = (await incoming).data.tradeId;
    const started = [alice, bob].map((p) => p.client.next("tradeStarted"));
    bob.client.send("tradeRequestRespond", { tradeId, accept: true });
    await Promise.all(started);
    const coins = (alice.sync.inventory as any[]).find((e) => e.itemId === "coins");
    const offered = bob.client.next("tradeUpdated", (data) => data.theirOffer.length === 1);
    alice.client.send("tradeAddItem", { tradeId, inventorySlot: coins.slot, quantity });
    await offered;
    const confirm = [alice, bob].map((p) => p.client.next("tradeConfirmScreen"));
    alice.client.send("tradeAccept", { tradeId });
    bob.client.send("tradeAccept", { tradeId });
    await Promise.all(confirm);
    return tradeId;
  }

  /** Both log out, and their departures are written. */
  async function settle(...clients: WsClient[]): Promise<void> {
    await Promise.all(clients.map((client) => client.close()));
    await sleep(1500);
  }

  it("a second login in world 2 on the confirm screen cancels the trade for both, nothing moved", async () => {
    const alice = await join(1);
    const bob = await join(1);
    const tradeId = await toConfirm(alice, bob, 10);
    const cancelled = bob.client.next("tradeCancelled");
    const again = await join(2, alice.token);
    assert.equal((await cancelled).data.reason, "partner_disconnected");
    bob.client.send("tradeAccept", { tradeId }, "late");
    const late = await bob.client.received((frame) => frame.id === "late");
    assert.equal(late.event, "tradeError");
    assert.equal(coinsIn(again.sync), 25);
    await settle(again.client, bob.client);
    assert.deepEqual([await stored(alice.id), await stored(bob.id)], [25, 25]);
  });

  /** The last accepts, and alice's second login in `world` `offsetMs` later (earlier when negative). */
  async function acceptAndLogIn(
    alice: WsPlayer,
    bob: WsPlayer,
    tradeId: string,
    world: number,
    offsetMs: number,
  ) {
    const accept = () => {
      alice.client.send("tradeAccept", { tradeId });
      bob.client.send("tradeAccept", { tradeId });
    };
    if (offsetMs >= 0) {
      accept();
      await sleep(offsetMs);
      return join(world, alice.token);
    }
    const login = join(world, alice.token);
    await sleep(-offsetMs);
    accept();
    return login;
  }

  for (const delayMs of [-30, -5, 10]) {
    it(`the last accept and a second login in world 2 ${delayMs} ms apart move the coins once or not at all`, async () => {
      const alice = await join(1);
      const bob = await join(1);
      const tradeId = await toConfirm(alice, bob, 10);
      const again = await acceptAndLogIn(alice, bob, tradeId, 2, delayMs);
      const bobEnd = await bob.client.received(
        (frame) => frame.event === "tradeCompleted" || frame.event === "tradeCancelled",
      );
      const aliceNow = coinsIn(again.sync);
      await settle(again.client, bob.client);
      const [a, b] = [await stored(alice.id), await stored(bob.id)];
      assert.equal(a + b, 50, `coins conserved (${bobEnd.event}: alice ${a}, bob ${b})`);
      assert.equal(aliceNow, a, "alice's new session was shown what is stored");
      assert.equal(a, bobEnd.event === "tradeCompleted" ? 15 : 25, `bob was told ${bobEnd.event}`);
    });
  }

  for (const delayMs of [-15, 0]) {
    it(`the last accept and a second login in the same world ${delayMs} ms apart move the coins once or not at all`, async () => {
      const alice = await join(1);
      const bob = await join(1);
      const tradeId = await toConfirm(alice, bob, 10);
      const again = await acceptAndLogIn(alice, bob, tradeId, 1, delayMs);
      const bobEnd = await bob.client.received(
        (frame) => frame.event === "tradeCompleted" || frame.event === "tradeCancelled",
      );
      await sleep(300);
      const aliceSync = [...again.client.frames].reverse().find((f) => f.event === "player:sync")!.data;
      await settle(again.client, bob.client);
      const [a, b] = [await stored(alice.id), await stored(bob.id)];
      assert.equal(a + b, 50, `coins conserved (${bobEnd.event}: alice ${a}, bob ${b})`);
      assert.equal(coinsIn(aliceSync), a, "alice's new session was shown what is stored");
    });
  }

  for (const delayMs of [0, 20]) {
    it(`the last accept and a hop ${delayMs} ms apart move the coins once or not at all`, async () => {
      const alice = await join(1);
      const bob = await join(1);
      const tradeId = await toConfirm(alice, bob, 10);
      bob.client.send("tradeAccept", { tradeId });
      alice.client.send("tradeAccept", { tradeId });
      await sleep(delayMs);
      alice.client.send("player:hop", { world: 2 }, "hop");
      const hop = await alice.client.received((frame) => frame.id === "hop");
      const bobEnd = await bob.client.received(
        (frame) => frame.event === "tradeCompleted" || frame.event === "tradeCancelled",
      );
      await sleep(500);
      const aliceSync = [...alice.client.frames].reverse().find((f) => f.event === "player:sync")!.data;
      await settle(alice.client, bob.client);
      const [a, b] = [await stored(alice.id), await stored(bob.id)];
      assert.equal(a + b, 50, `coins conserved (${bobEnd.event}, hop ${hop.event}: alice ${a}, bob ${b})`);
      assert.equal(
        coinsIn(aliceSync),
        a,
        `alice was last shown what is stored (hop ${JSON.stringify(hop.data)})`,
      );
    });
  }

  it("coins dropped in the tick of a hop are either on world 1's ground or carried, never both", async () => {
    const alice = await join(1);
    const coins = (alice.sync.inventory as any[]).find((e) => e.itemId === "coins");
    alice.client.send("player:action", { action: "drop", inventorySlot: coins.slot });
    alice.client.send("player:hop", { world: 2 }, "hop");
    await alice.client.received((frame) => frame.id === "hop");
    await sleep(800);
    const synced = [...alice.client.frames].reverse().find((f) => f.event === "player:sync")!.data;
    await settle(alice.client);
    const ground = await server.runtime.database.db
      .select()
      .from(groundItems)
      .where(eq(groundItems.ownerId, alice.id));
    const onGround = ground
      .filter((item) => item.itemId === "coins")
      .reduce((sum, item) => sum + item.quantity, 0);
    assert.equal(
      onGround + (await stored(alice.id)),
      25,
      `ground ${onGround}, carried ${await stored(alice.id)}`,
    );
    assert.equal(coinsIn(synced), await stored(alice.id));
  });
});
