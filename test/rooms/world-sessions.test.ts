import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { Client } from "@colyseus/sdk";
import type { WorldWrite } from "../../src/db/world-store.js";
import { roomLiveWorld } from "../../src/rooms/live-world.js";
import { findWorld } from "../../src/rooms/world-listing.js";
import {
  leave,
  type SdkPlayer,
  sleep,
  stillWaitingAfter,
  waitForAsync,
  worldSuite,
} from "../support/players.js";
import { interceptWorldWrites } from "../support/world-writes.js";
import {
  becomeAdmin,
  countOf,
  give,
  latestSync,
  seenEntities,
  seenEntity,
  slotOf,
  storedCount,
  storedGroundOf,
  syncWhere,
  teleport,
  waitFor,
} from "./world-helpers.js";

const ADMIN_CODE = "open-sesame";
/** Next to the starting area's bank booth at (30,26). */
const BY_THE_BANK = { x: 31, z: 27 };
/** Next to Meadowbrook's shopkeeper at (22,30). */
const BY_THE_SHOP = { x: 23, z: 30 };

describe("WorldRoom: inventory, bank, admin and sessions", function () {
  this.timeout(30000);
  const { server, join } = worldSuite({ WORLD_TICK_MS: "50", ADMIN_CODE, RECONNECT_SECONDS: "5" });
  const getPlayer = async (token: string) => {
    const response = await fetch(`${server().baseUrl}/api/v1/player`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: await response.json() };
  };
  const walkTo = async (player: SdkPlayer, tile: { x: number; z: number }) => {
    player.room.send("player:move", tile);
    await waitFor(() => {
      const self = seenEntity(player, player.id);
      return self?.x === tile.x && self.z === tile.z;
    }, `walk to ${tile.x},${tile.z}`);
  };

  it("drops an item on the ground and picks it up again", async () => {
    const player = await join();
    const swordSlot = slotOf(player.sync, "bronze_sword");
    player.room.send("player:action", { action: "drop", inventorySlot: swordSlot });
    await syncWhere(player, (sync) => countOf(sync, "bronze_sword") === 0);
    await waitFor(
      () => seenEntities(player).some((e) => e.kind === "item" && e.type === "bronze_sword"),
      "the sword on the ground",
    );
    const sword = seenEntities(player).find((e) => e.kind === "item" && e.type === "bronze_sword")!;
    assert.deepEqual({ x: sword.x, z: sword.z }, { x: 32, z: 32 });
    player.room.send("player:action", { action: "pickup", targetId: sword.id });
    await syncWhere(player, (sync) => countOf(sync, "bronze_sword") === 1);
    await waitFor(() => seenEntity(player, sword.id) === undefined, "the sword gone from the ground");
  });

  it("never lets another player have a dropped untradeable item: it stays its owner's when a tradeable one turns public", async () => {
    const [owner, bystander] = [await join(), await join()];
    await becomeAdmin(owner, ADMIN_CODE);
    const given = await give(owner, "guild_token", 1);
    owner.room.send("player:action", { action: "drop", inventorySlot: slotOf(given, "guild_token") });
    await syncWhere(owner, (sync) => countOf(sync, "guild_token") === 0);
    const dropped = (type: string) => () =>
      seenEntities(owner).find((e) => e.kind === "item" && e.type === type);
    await waitFor(() => dropped("guild_token")() !== undefined, "the token on the ground");
    const token = dropped("guild_token")()!;
    // Dropped after the token, so it turns public no earlier than the token's owner-only time ends.
    owner.room.send("player:action", { action: "drop", inventorySlot: slotOf(owner.sync, "bronze_sword") });
    await waitFor(
      () => seenEntities(bystander).some((e) => e.kind === "item" && e.type === "bronze_sword"),
      "the sword turning public",
      15000,
    );
    assert.equal(seenEntity(bystander, token.id), undefined);
    bystander.room.send("player:action", { action: "pickup", targetId: token.id });
    const refused = await bystander.inbox.next("error", (e) => e.event === "player:action");
    assert.equal(refused.code, "not_found");
    assert.equal(countOf(latestSync(bystander), "guild_token"), 0);
    // Its owner still sees it, and may take it back.
    assert.ok(seenEntity(owner, token.id), "the token still on the ground for its owner");
    owner.room.send("player:action", { action: "pickup", targetId: token.id });
    await syncWhere(owner, (sync) => countOf(sync, "guild_token") === 1);
  });

  it("deposits and withdraws at a bank booth, committed before the acknowledgement", async () => {
    const player = await join();
    await walkTo(player, BY_THE_BANK);
    // The deposit's first write fails: the acknowledgement waits for the one that commits.
    const { worldStore } = server().runtime;
    let refused = 0;
    const restoreWrites = interceptWorldWrites(worldStore, async (write, save) => {
      if (refused === 0 && write.characters.some(({ parts }) => parts?.includes("bank"))) {
        refused++;
        throw new Error("database unavailable");
      }
      return save();
    });
    try {
      player.room.send("bank:deposit", { inventorySlot: slotOf(latestSync(player), "coins"), quantity: 20 });
      const deposited = await syncWhere(player, (sync) => sync.coins === 5);
      assert.deepEqual(deposited.bank, [{ itemId: "coins", quantity: 20 }]);
      assert.equal(refused, 1);
    } finally {
      restoreWrites();
    }
    // The acknowledgement follows the commit: the database already holds the new bank.
    assert.deepEqual((await server().runtime.characters.load(player.id))?.bank, [
      { itemId: "coins", quantity: 20 },
    ]);

    player.room.send("bank:withdraw", { itemId: "coins", quantity: 15 });
    const withdrawn = await syncWhere(player, (sync) => sync.coins === 20);
    assert.deepEqual(withdrawn.bank, [{ itemId: "coins", quantity: 5 }]);
    assert.deepEqual((await server().runtime.characters.load(player.id))?.bank, [
      { itemId: "coins", quantity: 5 },
    ]);
  });

  it("refuses banking away from a booth or banker, and changes nothing", async () => {
    const player = await join();
    player.room.send("bank:deposit", { inventorySlot: slotOf(player.sync, "coins"), quantity: 5 });
    const error = await player.inbox.next("error", (e) => e.event === "bank:deposit");
    assert.equal(error.code, "too_far");
    player.room.send("bank:withdraw", { itemId: "coins", quantity: 1 });
    assert.equal((await player.inbox.next("error", (e) => e.event === "bank:withdraw")).code, "too_far");
    await sleep(200);
    assert.equal(latestSync(player).coins, 25);
    assert.deepEqual(latestSync(player).bank ?? [], []);
  });

  it("buys a hammer from the shopkeeper and sells a sword back, stored with the tick", async () => {
    const player = await join();
    await walkTo(player, BY_THE_SHOP);
    const keeper = seenEntities(player).find((entity) => entity.type === "general_store_keeper")!;
    player.room.send("store:open", { targetId: keeper.id });
    const stock = await player.inbox.next("store:stock", () => true);
    assert.deepEqual(
      stock.items.find((offer: { itemId: string }) => offer.itemId === "hammer"),
      { itemId: "hammer", stock: 5, price: 1 },
    );

    player.room.send("store:buy", { targetId: keeper.id, itemId: "hammer", quantity: 1 });
    const bought = await syncWhere(player, (sync) => countOf(sync, "hammer") === 1);
    assert.equal(bought.coins, 24);
    // Sent in the same tick as the player:sync, before it.
    const after = player.inbox.all("store:stock").at(-1);
    assert.equal(after.items.find((offer: { itemId: string }) => offer.itemId === "hammer").stock, 4);

    // A bronze sword is worth 26: the store pays 40 %, 10 coins.
    player.room.send("store:sell", {
      targetId: keeper.id,
      inventorySlot: slotOf(bought, "bronze_sword"),
      quantity: 1,
    });
    const sold = await syncWhere(player, (sync) => countOf(sync, "bronze_sword") === 0);
    assert.equal(sold.coins, 34);
    await waitForAsync(
      async () => (await storedCount(server(), player.id, "coins")) === 34,
      "the coins are stored",
    );
    assert.equal(await storedCount(server(), player.id, "hammer"), 1);
    assert.equal(await storedCount(server(), player.id, "bronze_sword"), 0);
  });

  it("refuses to trade away from the shopkeeper, and changes nothing", async () => {
    const player = await join();
    const keeper = seenEntities(player).find((entity) => entity.type === "general_store_keeper");
    assert.ok(keeper, "the shopkeeper is in view of the spawn point");
    player.room.send("store:buy", { targetId: keeper.id, itemId: "hammer", quantity: 1 });
    assert.equal((await player.inbox.next("error", (e) => e.event === "store:buy")).code, "too_far");
    await sleep(200);
    assert.equal(latestSync(player).coins, 25);
  });

  it("runs admin commands only after the right code", async () => {
    const player = await join();
    player.room.send("player:chat", { message: "/give coins 5" });
    assert.equal((await player.inbox.next("error", (e) => e.event === "player:chat")).code, "forbidden");
    player.room.send("player:chat", { message: "/admin wrong-code" });
    assert.equal((await player.inbox.next("error", (e) => e.event === "player:chat")).code, "forbidden");

    await becomeAdmin(player, ADMIN_CODE);
    const given = await give(player, "logs", 3);
    assert.equal(countOf(given, "logs"), 3);
    await teleport(player, 40, 20);
    player.room.send("player:chat", { message: "/heal" });
    player.room.send("player:chat", { message: "/tp 1 2 3" });
    const usage = await player.inbox.next("error", (e) => e.event === "player:chat");
    assert.match(usage.message, /Usage: \/tp/, "the /heal before it was accepted");
  });

  it("keeps a dropped player's seat: a reconnection within the window finds the player where it was", async () => {
    const player = await join();
    await walkTo(player, { x: 33, z: 33 });
    const reconnectionToken = player.room.reconnectionToken;
    player.room.connection.close(4010);
    await sleep(300);
    assert.ok(await server().runtime.characters.summary(player.id), "character exists");
    const again = await player.sdk.reconnect(reconnectionToken);
    const inbox: { event: string; data: any }[] = [];
    again.onMessage("*", (event, data) => inbox.push({ event: String(event), data }));
    await waitFor(() => inbox.some((m) => m.event === "player:sync"), "player:sync after reconnecting");
    assert.deepEqual(inbox.find((m) => m.event === "player:sync")!.data.position, { x: 33, z: 33 });
    // The reconnected session plays on: its view follows its moves, and it hears what is said near it.
    again.send("player:move", { x: 33, z: 35 });
    const self = () => (again.state as any).entities?.get(player.id);
    await waitFor(() => self()?.z === 35, "the view follows the reconnected player");
    again.send("player:chat", { message: "back again" });
    await waitFor(
      () => inbox.some((m) => m.event === "chat:message" && m.data.message === "back again"),
      "the reconnected player hears its own chat",
    );
    await leave(again);
  });

  it("keeps a reconnected SDK client's prayers on: a reconnection is the same session, not a login", async () => {
    const player = await join();
    player.room.send("prayer:toggle", { prayerId: "bark_skin", active: true });
    await player.inbox.next("player:sync", (sync) => sync.prayer.active.includes("bark_skin"));
    const reconnectionToken = player.room.reconnectionToken;
    player.room.connection.close(4010);
    await sleep(300);
    const again = await player.sdk.reconnect(reconnectionToken);
    const syncs: any[] = [];
    again.onMessage("player:sync", (data) => syncs.push(data));
    await waitFor(() => syncs.length > 0, "player:sync after reconnecting");
    assert.deepEqual(syncs[0].prayer.active, ["bark_skin"]);
    await leave(again);
  });

  it("brings a reconnected player's view up to what changed around it while it was away", async () => {
    const player = await join();
    const other = await join();
    await walkTo(player, { x: 33, z: 33 });
    await walkTo(other, { x: 34, z: 33 });
    await waitFor(() => seenEntity(player, other.id) !== undefined, "the other player in view");
    const reconnectionToken = player.room.reconnectionToken;
    player.room.connection.close(4010);
    // Out of view while the first is away (views reach at most 19 tiles).
    await becomeAdmin(other, ADMIN_CODE);
    await teleport(other, 60, 60);
    await sleep(300);
    const again = await player.sdk.reconnect(reconnectionToken);
    const errors: unknown[] = [];
    again.onError((code, message) => errors.push({ code, message }));
    const seen = (id: string) => (again.state as any).entities?.get(id);
    await waitFor(
      () => seen(player.id) !== undefined && seen(other.id) === undefined,
      "the other one gone from view",
    );
    // And back in view: the view goes on following what happens around the player.
    await teleport(other, 33, 34);
    await waitFor(() => seen(other.id)?.z === 34, "the other player back in view");
    assert.deepEqual(errors, []);
    await leave(again);
    await leave(other.room);
  });

  it("sends a reconnected SDK client no one who left its view while it was away, not even in its first state", async () => {
    const player = await join();
    const other = await join();
    await becomeAdmin(other, ADMIN_CODE);
    await waitFor(() => seenEntity(player, other.id) !== undefined, "the other player in view");
    const reconnectionToken = player.room.reconnectionToken;
    player.room.connection.close(4010);
    await teleport(other, 70, 70);
    await sleep(300);
    const again = await player.sdk.reconnect(reconnectionToken);
    const sent: string[] = [];
    again.onStateChange((state: any) => {
      const seen = state.entities?.get(other.id);
      if (seen) sent.push(`${seen.x},${seen.z}`);
    });
    await waitFor(() => (again.state as any).entities?.get(player.id) !== undefined, "the player itself");
    await sleep(300);
    assert.deepEqual(sent, [], "the other player, 38 tiles away, is out of view");
    await leave(again);
  });

  it("shows a reconnected SDK client a player who logged out and back in while it was away", async () => {
    const player = await join();
    const other = await join();
    await waitFor(() => seenEntity(player, other.id) !== undefined, "the other player in view");
    const reconnectionToken = player.room.reconnectionToken;
    player.room.connection.close(4010);
    // While it is away, the other player logs out and comes back some ticks later: the same player in a
    // new session, which the world draws anew.
    await leave(other.room);
    await sleep(300);
    const otherAgain = await join(other.token);
    await sleep(300);
    const again = await player.sdk.reconnect(reconnectionToken);
    otherAgain.room.send("player:move", { x: 33, z: 35 });
    await waitFor(() => {
      const seen = (again.state as any).entities?.get(other.id);
      return seen?.x === 33 && seen.z === 35;
    }, "the reconnected player sees the other one walk");
    await leave(again);
  });

  /**
   * What a client that reads world:update messages draws: what was added, as it was last added or
   * updated, until removed. An update of an entity it was never sent is no entity it can draw.
   */
  class Picture {
    readonly ids = new Set<string>();
    see({
      added,
      updated,
      removed,
    }: {
      added: { id: string }[];
      updated: { id: string }[];
      removed: string[];
    }) {
      for (const { id } of added) this.ids.add(id);
      for (const { id } of updated)
        assert.ok(this.ids.has(id), `an update of ${id}, which it was never sent`);
      for (const id of removed) this.ids.delete(id);
    }
    /** What never moves (trees, rocks, the bank) among what it draws. */
    still(): string[] {
      return [...this.ids].filter((id) => /^(res|station):/.test(id)).sort();
    }
  }

  it("sends an SDK client that reads messages its whole view again when it reconnects with its token", async () => {
    const reader = await join(undefined, { updates: "messages" });
    const other = await join();
    const before = new Picture();
    for (const update of reader.inbox.all("world:update")) before.see(update);
    reader.room.onMessage("world:update", (update) => before.see(update));
    await waitFor(() => before.ids.has(other.id), "the other player in the reader's view");
    const reconnectionToken = reader.room.reconnectionToken;
    reader.room.connection.close(4010);
    await sleep(300);
    // A new room object (a reloaded page, say) holds nothing: it is sent everything in view as added.
    const again = await reader.sdk.reconnect(reconnectionToken);
    const after = new Picture();
    const errors: unknown[] = [];
    again.onMessage("world:update", (update) => {
      try {
        after.see(update);
      } catch (error) {
        errors.push(error);
      }
    });
    again.onMessage("*", () => {});
    await waitFor(() => after.ids.has(reader.id) || errors.length > 0, "the reader sees itself again");
    assert.deepEqual(errors, []);
    assert.ok(after.ids.has(other.id), "the reader sees the other player again");
    assert.ok(before.still().length > 0);
    assert.deepEqual(after.still(), before.still(), "and what never moves");
    await leave(again);
  });

  it("sends an SDK client that reads messages its whole view again when it reconnects after losing updates", async () => {
    const reader = await join(undefined, { updates: "messages" });
    const other = await join();
    await becomeAdmin(other, ADMIN_CODE);
    let picture = new Picture();
    const errors: unknown[] = [];
    const see = (update: any) => {
      try {
        picture.see(update);
      } catch (error) {
        errors.push(error);
      }
    };
    for (const update of reader.inbox.all("world:update")) see(update);
    reader.room.onMessage("world:update", see);
    await waitFor(() => picture.ids.has(other.id), "the other player in the reader's view");
    const stillBefore = picture.still();
    // The reader's connection fails without the world's knowing: what it is sent is lost on the way,
    // the other player's leaving its view included.
    const socket = (reader.room.connection as any).transport.ws;
    socket.onmessage = () => {};
    await teleport(other, 60, 60);
    await sleep(300);
    // Then the connection breaks, and the SDK reconnects the same room object. What it drew may be out of
    // date: it starts afresh from the update that follows the reconnection.
    reader.room.reconnection.minUptime = 0;
    const reconnected = new Promise<void>((resolve) =>
      reader.room.onReconnect(() => {
        picture = new Picture();
        resolve();
      }),
    );
    socket.terminate();
    await reconnected;
    await waitFor(() => picture.ids.has(reader.id) || errors.length > 0, "the reader sees itself again");
    assert.deepEqual(errors, []);
    assert.equal(picture.ids.has(other.id), false, "the other player is out of view");
    assert.deepEqual(picture.still(), stillBefore);
    await leave(reader.room);
  });

  it("lets the seat go after the window and saves the player", async () => {
    const player = await join();
    await walkTo(player, { x: 34, z: 34 });
    const reconnectionToken = player.room.reconnectionToken;
    player.room.connection.close(4010);
    await sleep(5500);
    await assert.rejects(player.sdk.reconnect(reconnectionToken));
    assert.deepEqual((await server().runtime.characters.load(player.id))?.position, { x: 34, z: 34 });
  });

  it("lets a second login of the same character replace the first session", async () => {
    const first = await join();
    await walkTo(first, { x: 35, z: 32 });
    const closed = new Promise<number>((resolve) => first.room.onLeave((code) => resolve(code)));
    const second = await join(first.token);
    assert.equal(second.id, first.id);
    assert.deepEqual(
      second.sync.position,
      { x: 35, z: 32 },
      "the same player, where the first session left it",
    );
    assert.equal(await closed, 4409);
    second.room.send("player:move", { x: 35, z: 34 });
    await waitFor(() => seenEntity(second, second.id)?.z === 34, "the second session plays");
  });

  it("takes nothing more from a session a second login replaced, whatever of it arrives late", async () => {
    const first = await join();
    await walkTo(first, { x: 35, z: 32 });
    const room = matchMaker.getLocalRoomById(first.room.roomId) as unknown as {
      clients: { sessionId: string }[];
      handleMessage(client: unknown, type: string, message: unknown): void;
    };
    const replaced = room.clients.find((client) => client.sessionId === first.room.sessionId)!;
    const closed = new Promise<number>((resolve) => first.room.onLeave((code) => resolve(code)));
    const second = await join(first.token);
    assert.equal(await closed, 4409);
    // A frame of the first session's that reached the room after the second login took over.
    room.handleMessage(replaced, "player:move", { x: 35, z: 36 });
    await sleep(500);
    const self = seenEntity(second, second.id);
    assert.deepEqual({ x: self?.x, z: self?.z }, { x: 35, z: 32 }, "the player stays where it was");
  });

  it("lets a second login that comes while the character loads replace the first, and play", async () => {
    const player = await join();
    await walkTo(player, { x: 35, z: 30 });
    await leave(player.room);
    // A slow database: the first login is still loading the character when the second comes.
    const { characters } = server().runtime;
    const load = characters.load;
    let loading!: () => void;
    const firstLoading = new Promise<void>((resolve) => {
      loading = resolve;
    });
    characters.load = async (id) => {
      loading();
      await sleep(400);
      return load.call(characters, id);
    };
    try {
      const sdk = new Client(server().baseUrl);
      sdk.auth.token = player.token;
      const first = sdk.joinOrCreate("world").then(
        (room) => new Promise<number>((resolve) => room.onLeave((code) => resolve(code))),
        () => "refused",
      );
      await firstLoading;
      const second = await join(player.token);
      assert.deepEqual(second.sync.position, { x: 35, z: 30 });
      assert.ok([4409, "refused"].includes(await first), "the first login is replaced");
      second.room.send("player:move", { x: 35, z: 32 });
      await waitFor(() => seenEntity(second, second.id)?.z === 32, "the second session plays");
    } finally {
      characters.load = load;
    }
  });

  it("persists everything on logout, and a new login starts from it", async () => {
    const player = await join();
    await walkTo(player, { x: 36, z: 30 });
    await leave(player.room);
    const again = await join(player.token);
    assert.deepEqual(again.sync.position, { x: 36, z: 30 });
  });

  it("shows a rename through the REST API to the player and to others at once", async () => {
    const alice = await join();
    const bob = await join();
    const response = await fetch(`${server().baseUrl}/api/v1/player`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Alicia" }),
    });
    assert.equal(response.status, 200);
    const renamed = await syncWhere(alice, (sync) => sync.name === "Alicia");
    assert.equal(renamed.id, alice.id);
    await waitFor(() => seenEntity(bob, alice.id)?.name === "Alicia", "bob sees the new name");
  });

  it("writes a tick's changes again after its write failed", async () => {
    const player = await join();
    await becomeAdmin(player, ADMIN_CODE);
    const { worldStore, characters } = server().runtime;
    let failures = 0;
    const restoreWrites = interceptWorldWrites(worldStore, async (_write, save) => {
      if (failures++ < 2) throw new Error("database unavailable");
      return save();
    });
    try {
      await give(player, "logs", 2);
      await waitFor(() => failures > 2, "writes resumed");
      await sleep(200);
    } finally {
      restoreWrites();
    }
    const stored = await characters.load(player.id);
    assert.equal(stored?.inventory.filter((entry) => entry.itemId === "logs").length, 2);
  });

  it("shows a login during the wait for the database the player's state only once it is written", async () => {
    const player = await join();
    const { worldStore } = server().runtime;
    let failed = 0;
    const restoreWrites = interceptWorldWrites(worldStore, async (_write, save) => {
      if (failed >= 0) {
        failed++;
        throw new Error("database unavailable");
      }
      return save();
    });
    try {
      player.room.send("player:action", { action: "drop", inventorySlot: slotOf(player.sync, "coins") });
      await waitFor(() => failed > 0, "the drop's write failed");
      // The same character logs in elsewhere, taking over the player still in the world.
      const second = join(player.token);
      assert.ok(
        await stillWaitingAfter(second, 300),
        "no player:sync shows the drop while it is not written",
      );
      failed = -1;
      const joined = await second;
      assert.equal(countOf(joined.sync, "coins"), 0);
      assert.equal(await storedCount(server(), player.id, "coins"), 0);
    } finally {
      restoreWrites();
    }
  });

  it("steps no tick while the last tick's write is still running", async () => {
    const player = await join();
    const { worldStore } = server().runtime;
    const tick = async () => (await roomLiveWorld(async () => []).status())!.tick;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let writing = false;
    const restoreWrites = interceptWorldWrites(worldStore, async (_write, save) => {
      writing = true;
      await held;
      return save();
    });
    try {
      player.room.send("player:action", { action: "drop", inventorySlot: slotOf(player.sync, "coins") });
      await waitFor(() => writing, "the drop's write under way");
      const before = await tick();
      await sleep(500);
      assert.ok((await tick()) <= before + 1, "no tick steps while the write runs");
    } finally {
      release();
      restoreWrites();
    }
    await player.inbox.next("player:sync", (sync) => countOf(sync, "coins") === 0);
    const after = await tick();
    await waitForAsync(async () => (await tick()) > after + 3, "the world steps again");
  });

  it("writes a drop that failed to save with the dropper's final save, so no crash between them loses it", async () => {
    const player = await join();
    const coins = countOf(player.sync, "coins");
    const { worldStore } = server().runtime;
    // The database takes only departures (whole states, no parts): every tick's write fails, and a
    // crash would come before any of them is written.
    let tickWritesFailed = 0;
    const restoreWrites = interceptWorldWrites(worldStore, async (write, save) => {
      if (write.characters.some((saved) => saved.parts === undefined)) return save();
      tickWritesFailed++;
      throw new Error("database unavailable");
    });
    try {
      player.room.send("player:action", { action: "drop", inventorySlot: slotOf(player.sync, "coins") });
      await waitFor(() => tickWritesFailed > 0, "the drop's write failed");
      await sleep(200);
      assert.equal(countOf(latestSync(player), "coins"), coins, "a drop not written is not acknowledged");
      await leave(player.room);
      await waitForAsync(
        async () => (await storedCount(server(), player.id, "coins")) === 0,
        "the final save is written",
      );
      assert.deepEqual(
        await storedGroundOf(server(), player.id),
        [["coins", coins]],
        "the coins are on the ground, in the same write",
      );
    } finally {
      restoreWrites();
    }
  });

  describe("REST reads of a player while the world waits for its database", () => {
    let player: SdkPlayer;
    let failing: boolean;
    let restoreWrites: () => void;
    // The player drops its coins while every write fails, until `failing` is cleared.
    beforeEach(async () => {
      player = await join();
      failing = true;
      restoreWrites = interceptWorldWrites(server().runtime.worldStore, async (_write, save) => {
        if (failing) throw new Error("database unavailable");
        return save();
      });
      player.room.send("player:action", { action: "drop", inventorySlot: slotOf(player.sync, "coins") });
      await sleep(300);
    });
    afterEach(() => restoreWrites());

    it("shows only what is written: 503 while the world waits, then the written drop", async () => {
      const waiting = await getPlayer(player.token);
      assert.equal(waiting.status, 503, "the drop is not written: a crash now would undo it");
      assert.equal(waiting.body.error.code, "unavailable");
      const position = await fetch(`${server().baseUrl}/api/characters/${player.id}/position`, {
        headers: { authorization: `Bearer ${player.token}` },
      });
      assert.equal(position.status, 503, "the character endpoints read the player as /api/v1/player does");
      assert.equal(await storedCount(server(), player.id, "coins"), countOf(player.sync, "coins"));
      failing = false;
      const written = await getPlayer(player.token);
      assert.equal(written.status, 200);
      assert.equal(written.body.coins, 0);
      assert.equal(await storedCount(server(), player.id, "coins"), 0);
    });

    it("keeps nothing waiting for the reads that gave up", async () => {
      const world = matchMaker.getLocalRoomById((await findWorld())!.roomId) as unknown as {
        parts: { ticks: { durability: { held?: unknown[] } } };
      };
      const waiting = () => world.parts.ticks.durability.held?.length;
      const held = waiting();
      const reads = await Promise.all(Array.from({ length: 20 }, () => getPlayer(player.token)));
      assert.deepEqual(new Set(reads.map(({ status }) => status)), new Set([503]));
      assert.equal(waiting(), held, "a read that gave up is not answered later");
    });

    it("shows a player who left as its last session left it, once that is written", async () => {
      await leave(player.room);
      const waiting = await getPlayer(player.token);
      assert.equal(waiting.status, 503, "not the coins the stored state still holds");
      failing = false;
      const written = await getPlayer(player.token);
      assert.equal(written.status, 200);
      assert.equal(written.body.coins, 0, "the coins it dropped before leaving");
    });
  });

  it("refuses a login whose last session stays unwritten for 10 s, and lets it in once written", async () => {
    const leaver = await join();
    let refusing = true;
    const restoreWrites = interceptWorldWrites(server().runtime.worldStore, async (write, save) => {
      if (refusing && write.characters.some((saved) => saved.state.id === leaver.id))
        throw new Error("database unavailable");
      return save();
    });
    try {
      await leave(leaver.room);
      const started = Date.now();
      await assert.rejects(join(leaver.token), /last session is not saved yet/);
      assert.ok(Date.now() - started >= 9_000, "it waited for the write first");
      refusing = false;
      const again = await join(leaver.token);
      assert.equal(again.id, leaver.id);
    } finally {
      restoreWrites();
    }
  });

  it("waits for its database while a departure is refused, and writes the departure with what depends on it", async () => {
    const leaver = await join();
    const stayer = await join();
    const coins = countOf(leaver.sync, "coins");
    const { worldStore } = server().runtime;
    let refused = 0;
    const committed: WorldWrite[] = [];
    const restoreWrites = interceptWorldWrites(worldStore, async (write, save) => {
      if (refused >= 0 && write.characters.some((saved) => saved.state.id === leaver.id)) {
        refused++;
        throw new Error("database unavailable");
      }
      const left = await save();
      committed.push(write);
      return left;
    });
    try {
      leaver.room.send("player:action", { action: "drop", inventorySlot: slotOf(leaver.sync, "coins") });
      await waitFor(() => refused > 0, "the drop's write refused");
      // The world stands still: nothing it could not write is told, and messages are refused meanwhile.
      stayer.room.send("player:chat", { message: "anyone there?" });
      const refusal = await stayer.inbox.next("error", (e) => e.event === "player:chat");
      assert.equal(refusal.code, "unavailable");
      assert.equal(countOf(latestSync(leaver), "coins"), coins, "the drop is not acknowledged");
      await leave(leaver.room);
      // A login meanwhile waits: what is stored is not the character's last state.
      const returning = join(leaver.token);
      assert.ok(await stillWaitingAfter(returning, 300), "the login waits for the departure's write");
      refused = -1;
      const again = await returning;
      assert.equal(countOf(again.sync, "coins"), 0);
      assert.deepEqual(await storedGroundOf(server(), leaver.id), [["coins", coins]]);
      const coinsOnTheGround = committed.filter((write) =>
        write.ground?.put.some((item) => item.itemId === "coins"),
      );
      assert.ok(coinsOnTheGround.length > 0);
      for (const write of coinsOnTheGround)
        assert.ok(
          write.characters.some((saved) => saved.state.id === leaver.id),
          "the coins' ground row is never written without the leaver's inventory",
        );
      stayer.room.send("player:chat", { message: "back again" });
      await stayer.inbox.next("chat:message", (m) => m.message === "back again");
    } finally {
      restoreWrites();
    }
  });
});

describe("WorldRoom: /admin attempts", function () {
  this.timeout(30000);
  const { join } = worldSuite({ ADMIN_CODE, RATE_LIMIT_AUTH_PER_MIN: "3" });

  it("count against the client's authentication limit: past it even the right code is refused", async () => {
    const player = await join();
    const answer = async (code: string) => {
      player.room.send("player:chat", { message: `/admin ${code}` });
      return (await player.inbox.next("error", (e) => e.event === "player:chat")).code;
    };
    assert.equal(await answer("guess-1"), "forbidden");
    assert.equal(await answer("guess-2"), "forbidden");
    assert.equal(await answer("guess-3"), "forbidden");
    assert.equal(await answer(ADMIN_CODE), "rate_limited");
  });
});
