import assert from "node:assert/strict";
import { joinAsNewPlayer, leave, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { asTrader, startTrade, type Trader } from "./trade-helpers.js";
import { countOf, latestSync, waitFor } from "./world-helpers.js";

describe("WorldRoom: a trade's commit after a failed write", function () {
  this.timeout(30000);
  let server: TestServer;
  const traders: Trader[] = [];

  const join = async (): Promise<Trader> => {
    const trader = asTrader(await joinAsNewPlayer(server));
    traders.push(trader);
    return trader;
  };

  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100" });
  });
  afterEach(async () => {
    await Promise.all(traders.splice(0).flatMap((trader) => [leave(trader.trade), leave(trader.room)]));
  });
  after(() => server?.stop());

  it("moves nothing while the database lags behind the world, so a dropped offer is not duplicated", async () => {
    const [alice, bob] = [await join(), await join()];
    const bobCoins = countOf(bob.sync, "coins");
    const tradeId = await startTrade(alice, bob);
    const coinsSlot = alice.sync.inventory.find((entry) => entry.itemId === "coins")!.slot;
    const offered = countOf(alice.sync, "coins");
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: coinsSlot, quantity: offered });
    await bob.tradeInbox.next("tradeUpdated", (update) => update.theirOffer.length === 1);
    for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
    await alice.tradeInbox.next("tradeConfirmScreen");

    // The database stops taking the world's writes: alice's drop stays in the world only.
    const { worldStore, characters } = server.runtime;
    const save = worldStore.save;
    let failed = 0;
    worldStore.save = async () => {
      failed++;
      throw new Error("database unavailable");
    };
    try {
      alice.room.send("player:action", { action: "drop", inventorySlot: coinsSlot });
      await alice.inbox.next("player:sync", (sync) => countOf(sync, "coins") === 0);
      await waitFor(() => failed > 0, "the drop's write failed");
      for (const me of [alice, bob]) me.trade!.send("tradeAccept", { tradeId });
      const cancelled = await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true);
      assert.equal(cancelled.reason, "commit_failed");
      assert.equal(alice.tradeInbox.last("tradeCompleted"), undefined);
    } finally {
      worldStore.save = save;
    }

    // Once the database is back, the world is written as it is: the coins lie on the ground, and only there.
    const storedCoins = async (id: string) =>
      (await characters.load(id))!.inventory
        .filter((entry) => entry.itemId === "coins")
        .reduce((sum, entry) => sum + entry.quantity, 0);
    await waitForAsync(async () => (await storedCoins(alice.id)) === 0, "alice's drop written");
    assert.equal(await storedCoins(bob.id), bobCoins, "bob received nothing");
    assert.equal(countOf(latestSync(bob), "coins"), bobCoins);
    const onGround = (await worldStore.loadGround(0)).filter((item) => item.itemId === "coins");
    assert.deepEqual(
      onGround.map((item) => [item.ownerId, item.quantity]),
      [[alice.id, offered]],
    );
  });
});
