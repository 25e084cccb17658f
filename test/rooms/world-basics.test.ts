import assert from "node:assert/strict";
import { Protocol } from "@colyseus/core";
import type { WebSocket } from "ws";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { joinAsNewPlayer, sleep, worldSuite } from "../support/players.js";
import { interceptWorldWrites } from "../support/world-writes.js";
import { connectNewPlayer } from "../support/ws-client.js";
import { asTrader, startTrade } from "./trade-helpers.js";
import { becomeAdmin, seenEntities, seenEntity, slotOf, teleport, waitFor } from "./world-helpers.js";

describe("WorldRoom: joining and moving", function () {
  this.timeout(30000);
  const { join, server } = worldSuite({ WORLD_TICK_MS: "100", ADMIN_CODE: "letmein" });

  it("sends the full player state first: spawn point, starter kit, skills", async () => {
    const { sync } = await join();
    assert.deepEqual(sync.position, { x: 32, z: 32 });
    assert.equal(sync.health, 10);
    assert.equal(sync.skills.constitution.level, 10);
    const items = sync.inventory.map((entry) => entry.itemId);
    for (const tool of ["bronze_axe", "bronze_pickaxe", "small_fishing_net", "tinderbox"])
      assert.ok(items.includes(tool), tool);
    assert.equal(sync.coins, 25);
  });

  it("replicates only the entities in view: itself and a nearby player, not a far one", async () => {
    const alice = await join();
    const bob = await join();
    await becomeAdmin(alice, "letmein");
    await teleport(alice, 60, 60);
    const carol = await join();
    await waitFor(() => seenEntity(carol, bob.id) !== undefined, "carol sees bob");
    assert.ok(seenEntity(carol, carol.id), "carol sees herself");
    assert.equal(seenEntity(carol, alice.id), undefined, "alice is 28 tiles away, beyond view distance");
  });

  it("walks along a path one tile a tick", async () => {
    const player = await join();
    const positions: string[] = [];
    player.room.onStateChange(() => {
      const self = seenEntity(player, player.id);
      if (self && positions.at(-1) !== `${self.x},${self.z}`) positions.push(`${self.x},${self.z}`);
    });
    // The first projection of the player may land on the same tick as the move otherwise.
    await waitFor(() => positions.at(-1) === "32,32", "standing at the spawn");
    player.room.send("player:move", { x: 32, z: 36 });
    await waitFor(() => positions.at(-1) === "32,36", "arrived");
    assert.deepEqual(positions.slice(-5), ["32,32", "32,33", "32,34", "32,35", "32,36"]);
  });

  it("shows a walker to each SDK client standing together, as it walks, leaves their view and comes back", async () => {
    const walker = await join();
    await becomeAdmin(walker, "letmein");
    // Side by side from the start, the two are sent one patch between them.
    const watchers = [await join(), await join()];
    for (const watcher of watchers)
      await waitFor(() => seenEntity(watcher, walker.id) !== undefined, "the walker in view");
    walker.room.send("player:move", { x: 32, z: 36 });
    for (const watcher of watchers)
      await waitFor(() => seenEntity(watcher, walker.id)?.z === 36, "the walker where it stopped");
    await teleport(walker, 60, 60);
    for (const watcher of watchers)
      await waitFor(() => seenEntity(watcher, walker.id) === undefined, "the walker out of view");
    await teleport(walker, 33, 33);
    for (const watcher of watchers) {
      await waitFor(() => seenEntity(watcher, walker.id)?.x === 33, "the walker back in view");
      assert.equal(seenEntity(watcher, walker.id)?.z, 33);
    }
  });

  it("sends an SDK client that joined for messages its view as world:update, the same as a /ws client's", async () => {
    const walker = await join();
    await becomeAdmin(walker, "letmein");
    const reader = await join(undefined, { updates: "messages" });
    const first = await reader.inbox.next("world:update", () => true, 5000, true);
    assert.ok(
      first.added.some((entity: { id: string }) => entity.id === reader.id),
      "itself, at once",
    );
    const addsWalker = (update: { added: { id: string }[] }) =>
      update.added.some(({ id }) => id === walker.id);
    await reader.inbox.next("world:update", addsWalker, 5000, true);
    const beside = await connectNewPlayer(server());
    try {
      walker.room.send("player:move", { x: 32, z: 36 });
      const arrived = await reader.inbox.next("world:update", (update) =>
        update.updated.some((entity: any) => entity.id === walker.id && entity.position.z === 36),
      );
      const sameTick = await beside.client.received(
        (frame) => frame.event === "world:update" && frame.data.tick === arrived.tick,
      );
      assert.deepEqual(arrived, sameTick.data);
      await teleport(walker, 60, 60);
      await reader.inbox.next("world:update", (update) => update.removed.includes(walker.id), 5000, true);
      // What it drops is its own to see for a while: its update alone lists it.
      reader.room.send("player:action", { action: "drop", inventorySlot: slotOf(reader.sync, "coins") });
      const dropped = await reader.inbox.next("world:update", (update) =>
        update.added.some((entity: any) => entity.kind === "item"),
      );
      const { id, ...coins } = dropped.added.find((entity: any) => entity.kind === "item");
      assert.match(id, /^item:/);
      assert.deepEqual(coins, {
        kind: "item",
        type: "coins",
        name: "Coins",
        position: { x: 32, z: 32 },
        quantity: 25,
      });
      // Its view came as messages only: nothing of it is in its replicated state.
      assert.equal(seenEntities(reader).length, 0);
    } finally {
      await beside.client.close();
    }
  });

  it("refuses a join whose options it cannot read, saying which", async () => {
    const refusal = (options: unknown) =>
      joinAsNewPlayer(server(), undefined, options as never).then(
        () => undefined,
        (error: { code?: number; message: string }) => error,
      );
    const refused = await refusal({ updates: "json" });
    assert.equal(refused?.code, 400);
    assert.match(refused.message, /updates/);
    const wrongCharacter = await refusal({ characterId: 5 });
    assert.equal(wrongCharacter?.code, 400);
    assert.match(wrongCharacter.message, /characterId/);
  });

  it("reserves no seat for a join without a valid token, or with options it cannot read", async () => {
    const seatRequest = (token: string | undefined, options: unknown) =>
      fetch(`${server().baseUrl}/matchmake/joinOrCreate/world`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(options),
      });
    const { token } = await issueAnonymousToken(server().runtime.jwtSecret);
    const refusals: [string | undefined, unknown, number, RegExp][] = [
      [undefined, {}, 401, /token/],
      ["forged", {}, 401, /token/],
      [token, { updates: 5 }, 400, /updates/],
    ];
    for (const [bearer, options, status, message] of refusals) {
      const response = await seatRequest(bearer, options);
      const body = await response.json();
      assert.equal(response.status, status, JSON.stringify(body));
      assert.equal(body.sessionId, undefined, "no seat");
      assert.match(body.error, message);
    }
    const seat = await (await seatRequest(token, {})).json();
    assert.equal(typeof seat.sessionId, "string", JSON.stringify(seat));
  });

  it("writes a walker's position when the walk ends and every 10 ticks on the way, not every tick", async () => {
    const player = await join();
    // Every position the world's writes hold for the player, as they are committed.
    const written: string[] = [];
    const restoreWrites = interceptWorldWrites(server().runtime.worldStore, async (write, save) => {
      const saved = await save();
      for (const { state, parts } of write.characters)
        if (state.id === player.id && (parts === undefined || parts.includes("position")))
          written.push(`${state.position.x},${state.position.z}`);
      return saved;
    });
    try {
      player.room.send("player:move", { x: 32, z: 57 });
      await waitFor(() => seenEntity(player, player.id)?.z === 57, "arrived", 15000);
      await waitFor(() => written.includes("32,57"), "the end of the walk is written");
    } finally {
      restoreWrites();
    }
    // 25 tiles walked: tiles on the way (every 10 ticks), then the end; never each tile. A write that
    // waited for the one before takes the position as it is by then, so a slow database writes fewer.
    const onTheWay = written.slice(0, -1);
    assert.equal(written.at(-1), "32,57", `positions written: ${written.join(" ")}`);
    assert.ok(onTheWay.length >= 1 && onTheWay.length <= 2, `positions written: ${written.join(" ")}`);
    for (const tile of onTheWay) assert.notEqual(tile, "32,32", "a tile on the way");
  });

  it("refuses a move more than 200 tiles away with move_too_far", async () => {
    const player = await join();
    player.room.send("player:move", { x: 400, z: 32 });
    const error = await player.inbox.next("error", (e) => e.event === "player:move");
    assert.equal(error.code, "move_too_far");
  });

  it("answers bad payloads and unknown events with error, changes nothing and keeps the client", async () => {
    const player = await join();
    player.room.send("player:move", { x: "north" });
    assert.equal((await player.inbox.next("error")).code, "bad_request");
    player.room.send("teleport:me", {});
    assert.equal((await player.inbox.next("error")).code, "unknown_event");
    player.room.send("", {});
    assert.deepEqual(await player.inbox.next("error"), {
      code: "unknown_event",
      message: 'There is no event named "".',
      event: "",
    });
    player.room.send("bank:deposit", { inventorySlot: 99, quantity: 1 });
    assert.equal((await player.inbox.next("error")).code, "bad_request");
    // Colyseus hands a message of type "*" to the room's wildcard handler with its data where the type
    // goes: read as the type, data that cannot be made a string took the whole process down.
    for (const data of [{ x: 1 }, { toString: 1 }]) {
      player.room.send("*", data);
      assert.deepEqual(await player.inbox.next("error"), {
        code: "unknown_event",
        message: 'There is no event named "*".',
        event: "*",
      });
    }
    player.room.send("player:chat", { message: "still here" });
    const chat = await player.inbox.next("chat:message", (m) => m.fromPlayerId === player.id);
    assert.equal(chat.message, "still here");
    const self = seenEntity(player, player.id);
    assert.deepEqual({ x: self?.x, z: self?.z }, { x: 32, z: 32 });
  });

  it("refuses a message over 4096 bytes with frame_too_large, keeping the connection and its trade", async () => {
    const alice = asTrader(await join());
    const bob = asTrader(await join());
    const tradeId = await startTrade(alice, bob);
    let leftWith: number | undefined;
    alice.room.onLeave((code) => {
      leftWith = code;
    });
    alice.room.send("player:chat", { message: "x".repeat(5000) });
    assert.deepEqual(await alice.inbox.next("error", (e) => e.code === "frame_too_large"), {
      code: "frame_too_large",
      message: "Frames are at most 4096 bytes.",
      event: "player:chat",
    });
    alice.trade!.send("tradeCancel", { tradeId: "x".repeat(4200) });
    assert.equal(
      (await alice.tradeInbox.next("error", (e) => e.code === "frame_too_large")).event,
      "tradeCancel",
      "in the trade's room too",
    );
    // Sent as bytes, the same.
    alice.room.sendBytes("player:chat", new Uint8Array(5000).fill(65));
    assert.equal(
      (await alice.inbox.next("error", (e) => e.code === "frame_too_large")).event,
      "player:chat",
      "a message sent with sendBytes too",
    );
    // Nothing was said, the connection stays, and so does the trade.
    alice.room.send("player:chat", { message: "still here" });
    await alice.inbox.next("chat:message", (m) => m.message === "still here");
    assert.equal(leftWith, undefined);
    assert.deepEqual(bob.tradeInbox.all("tradeCancelled"), []);
    alice.trade!.send("tradeCancel", { tradeId });
    await bob.tradeInbox.next("tradeCancelled");
  });

  it("delivers chat to players nearby", async () => {
    const alice = await join();
    const bob = await join();
    alice.room.send("player:chat", { message: "hello bob" });
    const heard = await bob.inbox.next("chat:message", (m) => m.fromPlayerId === alice.id);
    assert.equal(heard.message, "hello bob");
    assert.equal(heard.fromPlayerName, alice.sync.name);
    assert.equal(typeof heard.timestamp, "number");
  });

  it("counts a chat message's characters once trimmed, an emoji as one: 200 are said, 201 refused", async () => {
    const alice = await join();
    const emoji = "\u{1F600}";
    alice.room.send("player:chat", { message: `  ${emoji.repeat(200)}  ` });
    const said = await alice.inbox.next("chat:message", (m) => m.fromPlayerId === alice.id);
    assert.equal(said.message, emoji.repeat(200));
    alice.room.send("player:chat", { message: emoji.repeat(201) });
    const error = await alice.inbox.next("error", (e) => e.code === "bad_request");
    assert.match(error.message, /1 to 200 characters/);
  });

  it("refuses chat with control or text-direction characters, which could fake lines of others, and says nothing", async () => {
    const [alice, bob] = [await join(), await join()];
    for (const forged of ["gg\nServer: you are muted", "a\u0000b", "tab\tbed", "\u202Ednuof meti"]) {
      alice.room.send("player:chat", { message: forged });
      const error = await alice.inbox.next("error", (e) => e.event === "player:chat");
      assert.equal(error.code, "bad_request", JSON.stringify(forged));
      assert.match(error.message, /control/);
    }
    alice.room.send("player:chat", { message: "plain words" });
    const heard = await bob.inbox.next("chat:message", (m) => m.fromPlayerId === alice.id);
    assert.equal(heard.message, "plain words");
  });

  it("keeps a flooding player blocked when it joins again, through the SDK as through /ws", async () => {
    const player = await join();
    for (let i = 0; i < 70; i++) player.room.send("player:move", { x: 32, z: 33 });
    await player.inbox.next("error", (e) => e.code === "rate_limited");
    const again = await joinAsNewPlayer(server(), player.token);
    const closed = new Promise<number>((resolve) => again.room.onLeave((code) => resolve(code)));
    for (let i = 0; i < 70; i++) again.room.send("player:move", { x: 32, z: 33 });
    assert.equal(await Promise.race([closed, sleep(5000).then(() => "still open")]), 4429);
    assert.ok(!again.inbox.all("error").some((e) => e.code === "rate_limited"), "no fresh count to pass");
  });

  it("answers a flood with rate_limited", async () => {
    const player = await join();
    for (let i = 0; i < 70; i++) player.room.send("player:move", { x: 32, z: 33 });
    const error = await player.inbox.next("error", (e) => e.code === "rate_limited");
    assert.match(error.message, /Too many/);
  });

  it("counts the frames Colyseus answers itself (requests, pings) against the message limit too", async () => {
    const player = await join();
    const ws = (player.room.connection.transport as unknown as { ws: WebSocket }).ws;
    const closed = new Promise<number>((resolve) => player.room.onLeave((code) => resolve(code)));
    // A request for a handler the room does not have, and a latency ping: neither reaches the game.
    const request = Uint8Array.from([Protocol.ROOM_REQUEST, 1, 0xa1, 0x78]);
    const ping = Uint8Array.from([Protocol.PING]);
    for (let i = 0; i < 70; i++) ws.send(i % 2 === 0 ? request : ping);
    await player.inbox.next("error", (e) => e.code === "rate_limited");
    for (let i = 0; i < 70; i++) ws.send(request);
    assert.equal(await Promise.race([closed, sleep(5000).then(() => "still open")]), 4429);
  });

  it("lets clients join the world but not create rooms: no second world, no forged trade", async () => {
    const player = await join();
    await assert.rejects(player.sdk.create("world"));
    await assert.rejects(player.sdk.joinOrCreate("trade", { trade: { id: "forged" } }));
  });
});
