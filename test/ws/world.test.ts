import assert from "node:assert/strict";
import { SKILLS } from "../../src/game/types.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import { joinAsNewPlayer, type SdkPlayer, sleep } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectNewPlayer, type Frame, WsClient, type WsPlayer } from "../support/ws-client.js";

const ADMIN_CODE = "ws-admin";

describe("/ws: playing in the world with plain WebSocket clients", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: WsPlayer[] = [];
  const sdkPlayers: SdkPlayer[] = [];
  const connect = async () => {
    const player = await connectNewPlayer(server);
    players.push(player);
    return player;
  };

  before(async () => {
    // Its tests send /admin more than the default 10 times a minute, each an authentication attempt.
    server = await startTestServer({ WORLD_TICK_MS: "100", ADMIN_CODE, RATE_LIMIT_AUTH_PER_MIN: "100" });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await Promise.all(sdkPlayers.splice(0).map((player) => player.room.leave().catch(() => {})));
  });
  after(() => server?.stop());

  it("greets with a full player:sync, then a world:update listing everything in view", async () => {
    const { client, sync } = await connect();
    assert.deepEqual(sync.position, { x: 32, z: 32 });
    assert.equal(sync.health, sync.maxHealth);
    assert.deepEqual(Object.keys(sync.skills).sort(), [...SKILLS].sort());
    assert.ok(sync.inventory.some((entry) => entry.itemId === "bronze_axe"));
    assert.equal(sync.coins, 25);
    assert.deepEqual(sync.equipment, {});
    const update = await client.received((frame) => frame.event === "world:update");
    assert.equal(client.frames.indexOf(update), 1, "the world:update follows the player:sync");
    const self = update.data.added.find((entity: any) => entity.id === sync.id);
    assert.deepEqual(self, { ...self, kind: "player", position: { x: 32, z: 32 } });
    const kinds = new Set(update.data.added.map((entity: any) => entity.kind));
    for (const kind of ["npc", "resource"]) assert.ok(kinds.has(kind), `a ${kind} is in view of the spawn`);
  });

  it("answers a refusal the tick finds with the refused frame's id and event", async () => {
    const { client, sync } = await connect();
    const shrimps = sync.inventory.filter((entry) => entry.itemId === "shrimps").map((entry) => entry.slot);
    assert.equal(shrimps.length, 2);
    // Both bites reach the same tick: the second is refused then (one food at a time), not on arrival.
    client.send("inventory:use", { inventorySlot: shrimps[0] }, "bite-1");
    client.send("inventory:use", { inventorySlot: shrimps[1] }, "bite-2");
    const refusal = await client.next("error");
    assert.deepEqual(refusal, {
      event: "error",
      data: { code: "too_soon", message: refusal.data.message, event: "inventory:use" },
      id: "bite-2",
    });
    await sleep(300);
    assert.equal(client.frames.filter((frame) => frame.event === "error").length, 1, "one refusal");
  });

  it("answers each frame with the player:sync that shows what it changed, with the frame's id", async () => {
    const { client, sync } = await connect();
    const [shrimp, other] = sync.inventory.filter((entry) => entry.itemId === "shrimps");
    client.send("inventory:use", { inventorySlot: shrimp!.slot }, "bite");
    const eaten = await client.next("player:sync");
    assert.equal(eaten.id, "bite");
    assert.equal(eaten.data.inventory.filter((entry: any) => entry.itemId === "shrimps").length, 1);

    // Two drops that reach the same tick share one player:sync, which answers each of them.
    const axe = sync.inventory.find((entry) => entry.itemId === "bronze_axe")!;
    client.send("player:action", { action: "drop", inventorySlot: other!.slot }, "drop-1");
    client.send("player:action", { action: "drop", inventorySlot: axe.slot }, "drop-2");
    const first = await client.received((frame) => frame.id === "drop-1");
    const second = await client.received((frame) => frame.id === "drop-2");
    assert.deepEqual([first.event, second.event], ["player:sync", "player:sync"]);
    const holds = (frame: Frame, itemId: string) =>
      frame.data.inventory.some((entry: any) => entry.itemId === itemId);
    assert.ok(!holds(first, "shrimps"));
    assert.ok(!holds(second, "shrimps") && !holds(second, "bronze_axe"));
  });

  it("refuses an action without what it acts on as bad_request, naming the missing field", async () => {
    const { client } = await connect();
    for (const [action, field] of [
      ["chop", "targetId"],
      ["attack", "targetId"],
      ["drop", "inventorySlot"],
      ["cook", "inventorySlot"],
      ["combat_style", "style"],
    ]) {
      const refused = client.next("error", (_data, frame) => frame.id === action);
      client.send("player:action", { action }, action);
      const { data } = await refused;
      assert.equal(data.code, "bad_request", action);
      assert.match(data.message, new RegExp(`${field}: ${action} needs a ${field}`));
    }
  });

  it("refuses an action aimed at something in view that it cannot apply to as invalid_target, naming it", async () => {
    const { client, sync } = await connect();
    const other = await connect();
    const { data: view } = await client.received((frame) => frame.event === "world:update");
    const inView = (test: (entity: any) => boolean) => view.added.find(test);
    const tree = inView((entity) => entity.type === "tree");
    const shopkeeper = inView((entity) => entity.kind === "npc" && entity.health === undefined);
    const shrimps = sync.inventory.find((entry) => entry.itemId === "shrimps")!;
    const attempts: [string, string, unknown, RegExp][] = [
      ["player:action", "attack-tree", { action: "attack", targetId: tree.id }, /Tree/],
      ["player:action", "attack-player", { action: "attack", targetId: other.id }, /./],
      ["player:action", "chop-npc", { action: "chop", targetId: shopkeeper.id }, new RegExp(shopkeeper.name)],
      ["player:action", "pickup-tree", { action: "pickup", targetId: tree.id }, /Tree/],
      [
        "inventory:use",
        "cook-on-npc",
        { inventorySlot: shrimps.slot, targetId: shopkeeper.id },
        new RegExp(shopkeeper.name),
      ],
    ];
    for (const [event, id, data, named] of attempts) {
      const refused = client.next("error", (_data, frame) => frame.id === id);
      client.send(event, data, id);
      const { data: refusal } = await refused;
      assert.equal(refusal.code, "invalid_target", `${id}: ${refusal.message}`);
      assert.match(refusal.message, named, id);
    }
    const missing = client.next("error", (_data, frame) => frame.id === "attack-nothing");
    client.send("player:action", { action: "attack", targetId: "npc:99999" }, "attack-nothing");
    assert.equal((await missing).data.code, "not_found", "what does not exist is not found");
  });

  it("takes a combat style by name, answered by a player:sync showing it, and refuses an unknown one", async () => {
    const { client, sync } = await connect();
    assert.equal(sync.combatStyle, "accurate", "a new character's");
    client.send("player:action", { action: "combat_style", style: "berserk" }, "style-1");
    const refusal = await client.next("error");
    assert.equal(refusal.id, "style-1");
    assert.equal(refusal.data.code, "bad_request");
    assert.equal(refusal.data.event, "player:action");
    client.send("player:action", { action: "combat_style", style: "aggressive" }, "style-2");
    const shown = await client.next("player:sync");
    assert.equal(shown.id, "style-2");
    assert.equal(shown.data.combatStyle, "aggressive");
    client.send("player:action", { action: "flee" }, "flee-1");
    const nothingToFlee = await client.next("error");
    assert.equal(nothingToFlee.id, "flee-1", "the style was taken; only the flight is refused");
    assert.equal(nothingToFlee.data.code, "invalid_target");
  });

  it("runs two tiles a tick on a move with run, spending run energy, which player:energy tells", async () => {
    const { client, id, sync } = await connect();
    assert.equal(sync.runEnergy, 100);
    client.send("player:move", { x: 32, z: 40, run: true });
    // 0.67 % a tick: the first whole percent goes with the first tick's two tiles.
    const [spent, moved] = await Promise.all([
      client.next("player:energy"),
      client.next("world:update", (data) => (entityIn(data, id)?.position.z ?? 32) > 32),
    ]);
    assert.deepEqual(spent.data, { runEnergy: 99 });
    assert.deepEqual(entityIn(moved.data, id)?.position, { x: 32, z: 34 }, "two tiles in its first tick");
  });

  it("shows two nearby clients each other's moves and chat", async () => {
    const alice = await connect();
    const bob = await connect();
    alice.client.send("player:move", { x: 32, z: 35 });
    bob.client.send("player:move", { x: 34, z: 32 });
    await Promise.all([
      bob.client.next("world:update", (data) => entityIn(data, alice.id)?.position.z === 35),
      alice.client.next("world:update", (data) => entityIn(data, bob.id)?.position.x === 34),
    ]);
    const aliceHears = (from: string) =>
      alice.client.next("chat:message", (data) => data.fromPlayerId === from);
    const [echo, toBob, toAlice] = [
      aliceHears(alice.id),
      bob.client.next("chat:message", (data) => data.fromPlayerId === alice.id),
      aliceHears(bob.id),
    ];
    alice.client.send("player:chat", { message: "hello bob" }, "chat-1");
    bob.client.send("player:chat", { message: "hi alice" });
    assert.equal((await toBob).data.message, "hello bob");
    assert.equal((await toBob).data.fromPlayerName, alice.sync.name);
    assert.equal((await toBob).id, undefined, "bob's copy answers nothing of his");
    assert.equal((await toAlice).data.message, "hi alice");
    // Alice's own copy of her line is the reply to the frame that said it.
    assert.deepEqual(await echo, { ...(await toBob), id: "chat-1" });
  });

  it("shows a client far away neither the moves nor the chat", async () => {
    const alice = await connect();
    const bob = await connect();
    const carol = await connect();
    // Carol has seen Alice (who may have joined in the same tick as she did).
    await carol.client.received(
      (frame) => frame.event === "world:update" && entityIn(frame.data, alice.id) !== undefined,
    );
    carol.client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await carol.client.next("chat:message", (data) => data.fromPlayerId === "server");
    carol.client.send("player:chat", { message: "/tp 60 60" });
    // Carol's view moves with her: Alice leaves it.
    await carol.client.next("world:update", (data) => data.removed.includes(alice.id));
    const mark = carol.client.frames.length;
    const bobSaw = Promise.all([
      bob.client.next("chat:message", (data) => data.fromPlayerId === alice.id),
      bob.client.next("world:update", (data) => entityIn(data, alice.id)?.position.x === 33),
    ]);
    alice.client.send("player:move", { x: 33, z: 33 });
    alice.client.send("player:chat", { message: "anyone far away?" });
    await bobSaw;
    // A few more ticks for anything that would reach Carol.
    await sleep(400);
    const carolSaw = carol.client.since(mark);
    assert.equal(carolSaw.filter((frame) => frame.event === "chat:message").length, 0);
    assert.ok(!carolSaw.some((frame) => frame.event === "world:update" && entityIn(frame.data, alice.id)));
  });

  it("answers /admin with the frame's id, whether the code is wrong or right", async () => {
    const { client } = await connect();
    client.send("player:chat", { message: "/admin not-the-code" }, "admin-1");
    const refused = await client.next("error", (data) => data.event === "player:chat");
    assert.deepEqual([refused.data.code, refused.id], ["forbidden", "admin-1"]);
    client.send("player:chat", { message: `/admin ${ADMIN_CODE}` }, "admin-2");
    const enabled = await client.next("chat:message", (data) => data.fromPlayerId === "server");
    assert.equal(enabled.id, "admin-2");
  });

  it("runs admin commands sent right after /admin, without waiting for its answer, in the order sent", async () => {
    const { client } = await connect();
    client.send("player:chat", { message: `/admin ${ADMIN_CODE}` }, "admin");
    client.send("player:chat", { message: "/give logs 2" }, "give");
    client.send("player:chat", { message: "/tp 40 40" }, "tp");
    const moved = await client.received((frame) => frame.event === "player:sync" && frame.id === "tp");
    assert.deepEqual(moved.data.position, { x: 40, z: 40 });
    const given = await client.received((frame) => frame.event === "player:sync" && frame.id === "give");
    assert.equal(given.data.inventory.filter((entry: any) => entry.itemId === "logs").length, 2);
    assert.deepEqual(
      client.frames.filter((frame) => frame.event === "error"),
      [],
      "nothing refused as sent before /admin",
    );
    const enabled = client.frames.findIndex(
      (frame) => frame.event === "chat:message" && frame.id === "admin",
    );
    assert.ok(enabled >= 0 && enabled < client.frames.indexOf(given), "/admin is answered first");
  });

  it("answers /tp and /heal with the player:sync that shows them, even when /heal finds full health", async () => {
    const { client } = await connect();
    client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await client.next("chat:message", (data) => data.fromPlayerId === "server");
    client.send("player:chat", { message: "/tp 40 40" }, "tp");
    const moved = await client.next("player:sync", (_data, frame) => frame.id === "tp");
    assert.deepEqual(moved.data.position, { x: 40, z: 40 });
    client.send("player:chat", { message: "/heal" }, "heal");
    const healed = await client.next("player:sync", (_data, frame) => frame.id === "heal");
    assert.equal(healed.data.health, healed.data.maxHealth);
  });

  it("buries bones for prayer XP, answering the frame with the player:sync that shows it", async () => {
    const { client } = await connect();
    client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await client.next("chat:message", (data) => data.fromPlayerId === "server");
    client.send("player:chat", { message: "/give big_bones" });
    const given = await client.next("player:sync", (data) =>
      data.inventory.some((entry: any) => entry.itemId === "big_bones"),
    );
    const slot = given.data.inventory.find((entry: any) => entry.itemId === "big_bones").slot;
    client.send("inventory:use", { inventorySlot: slot }, "bury");
    const buried = await client.next("player:sync", (_data, frame) => frame.id === "bury");
    assert.deepEqual(buried.data.skills.prayer, { level: 1, xp: 15 });
    assert.equal(
      buried.data.inventory.some((entry: any) => entry.itemId === "big_bones"),
      false,
    );
    const told = await client.received((frame) => frame.event === "skill:xp");
    assert.deepEqual(told.data, { skill: "prayer", xp: 15, gained: 15, level: 1 });
  });

  it("smelts a bar at the mines' furnace, naming the bar, with smithing XP for it", async () => {
    const { client } = await connect();
    client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await client.next("chat:message", (data) => data.fromPlayerId === "server");
    client.send("player:chat", { message: "/tp 28 72" });
    const furnace = await client.received(
      (frame) =>
        frame.event === "world:update" && frame.data.added.some((entity: any) => entity.type === "furnace"),
    );
    const furnaceId = furnace.data.added.find((entity: any) => entity.type === "furnace").id;
    client.send("player:chat", { message: "/give copper_ore" });
    client.send("player:chat", { message: "/give tin_ore" });
    const given = await client.next("player:sync", (data) =>
      data.inventory.some((entry: any) => entry.itemId === "tin_ore"),
    );
    const copper = given.data.inventory.find((entry: any) => entry.itemId === "copper_ore").slot;
    const mark = client.frames.length;
    client.send(
      "inventory:use",
      { inventorySlot: copper, targetId: furnaceId, productId: "bronze_bar" },
      "smelt",
    );
    const smelted = await client.next("player:sync", (data) =>
      data.inventory.some((entry: any) => entry.itemId === "bronze_bar"),
    );
    assert.deepEqual(
      smelted.data.inventory
        .filter((entry: any) => /_ore$|_bar$/.test(entry.itemId))
        .map((entry: any) => entry.itemId),
      ["bronze_bar"],
    );
    assert.deepEqual(smelted.data.skills.smithing, { level: 1, xp: 6.2 });
    const told = await client.received(
      (frame) => frame.event === "skill:xp" && frame.data.skill === "smithing",
    );
    assert.deepEqual(told.data, { skill: "smithing", xp: 6.2, gained: 6.2, level: 1 });
    assert.deepEqual(
      client.since(mark).filter((frame) => frame.event === "error"),
      [],
    );
  });

  it("answers store:open with the stock and a purchase with the player:sync that shows it", async () => {
    const { client, id } = await connect();
    client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await client.next("chat:message", (data) => data.fromPlayerId === "server");
    client.send("player:chat", { message: "/tp 22 31" });
    await client.next("world:update", (data) =>
      [...data.added, ...data.updated].some(
        (entity: any) => entity.id === id && entity.position.x === 22 && entity.position.z === 31,
      ),
    );
    const seen = await client.received(
      (frame) =>
        frame.event === "world:update" &&
        frame.data.added.some((entity: any) => entity.type === "general_store_keeper"),
    );
    const keeper = seen.data.added.find((entity: any) => entity.type === "general_store_keeper").id;
    client.send("store:open", { targetId: keeper }, "look");
    const stock = await client.next("store:stock", (_data, frame) => frame.id === "look");
    assert.equal(stock.data.name, "Meadowbrook General Store");
    const bread = stock.data.items.find((offer: any) => offer.itemId === "bread");
    client.send("store:buy", { targetId: keeper, itemId: "bread", quantity: 5 }, "buy");
    const bought = await client.next("player:sync", (_data, frame) => frame.id === "buy");
    assert.equal(bought.data.coins, 25 - 2 * bread.price, "the coins pay for two loaves of the five asked");
    assert.equal(bought.data.inventory.filter((entry: any) => entry.itemId === "bread").length, 2);
  });

  it("switches a prayer on, answered by the player:sync that shows it, until its points run out", async () => {
    const { client } = await connect();
    client.send("prayer:toggle", { prayerId: "bark_skin", active: true }, "pray");
    const on = await client.next("player:sync", (_data, frame) => frame.id === "pray");
    assert.deepEqual(on.data.prayer, { points: 1, active: ["bark_skin"] });
    // Bark Skin drains 5 points a minute: a new character's one point lasts 20 ticks (2 s here).
    const out = await client.next("error", (data) => data.code === "no_prayer_points");
    assert.equal(out.data.message, "You have run out of prayer points.");
    const off = await client.received(
      (frame) => frame.event === "player:sync" && frame.data.prayer.points === 0,
    );
    assert.deepEqual(off.data.prayer, { points: 0, active: [] }, "switched off as the last point went");
    client.send("prayer:toggle", { prayerId: "stone_skin", active: true }, "again");
    const refused = await client.next("error", (_data, frame) => frame.id === "again");
    assert.equal(refused.data.code, "level_too_low");
  });

  it("logs in with every prayer off, even when the login takes over a session still playing", async () => {
    const { client, token } = await connect();
    client.send("prayer:toggle", { prayerId: "bark_skin", active: true }, "pray");
    const on = await client.next("player:sync", (_data, frame) => frame.id === "pray");
    assert.deepEqual(on.data.prayer.active, ["bark_skin"]);
    const again = await WsClient.connect(server.wsUrl, { header: token });
    players.push({ client: again, sync: on.data, id: on.data.id, token });
    const greeting = await again.first();
    assert.equal(greeting.event, "player:sync");
    assert.deepEqual(greeting.data.prayer.active, [], "off at every login (docs/protocol.md)");
  });

  it("switches prayers off for a /ws client back in its kept seat after a drop", async () => {
    const { client, token } = await connect();
    client.send("prayer:toggle", { prayerId: "bark_skin", active: true }, "pray");
    const on = await client.next("player:sync", (_data, frame) => frame.id === "pray");
    client.socket.terminate();
    await client.closed;
    const back = await WsClient.connect(server.wsUrl, { header: token });
    players.push({ client: back, sync: on.data, id: on.data.id, token });
    const greeting = await back.first();
    assert.equal(greeting.event, "player:sync");
    assert.deepEqual(greeting.data.prayer.active, []);
  });

  it("answers a chat line whose speaker teleports away in the same tick", async () => {
    const { client } = await connect();
    client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await client.next("chat:message", (data) => data.fromPlayerId === "server");
    client.send("player:chat", { message: "off I go" }, "say-1");
    client.send("player:chat", { message: "/tp 60 60" });
    const line = await client.next("chat:message", (data) => data.message === "off I go");
    assert.equal(line.id, "say-1");
  });

  it("gives a speaker who teleports its own line in the tick's order among the lines where it arrives", async () => {
    const [a, b] = [await connect(), await connect()];
    for (const { client } of [a, b]) {
      client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
      await client.next("chat:message", (data) => data.fromPlayerId === "server");
    }
    b.client.send("player:chat", { message: "/tp 60 60" });
    await b.client.next("world:update", (data) => entityIn(data, b.id)?.position.x === 60);
    const mark = a.client.frames.length;
    // One tick: A speaks, leaves for B's tile, then B speaks there.
    a.client.send("player:chat", { message: "first, from afar" }, "a-1");
    a.client.send("player:chat", { message: "/tp 60 60" });
    b.client.send("player:chat", { message: "second, said here" });
    await a.client.next("chat:message", (data) => data.message === "second, said here");
    await sleep(300);
    const heard = a.client.since(mark).filter((frame) => frame.event === "chat:message");
    assert.deepEqual(
      heard.map((frame) => [frame.data.message, frame.id]),
      [
        ["first, from afar", "a-1"],
        ["second, said here", undefined],
      ],
    );
  });

  it("puts an SDK client and a /ws client in the same world: each sees the other and its chat", async () => {
    const sdk = await joinAsNewPlayer(server);
    sdkPlayers.push(sdk);
    const ws = await connect();
    await ws.client.received(
      (frame) => frame.event === "world:update" && entityIn(frame.data, sdk.id) !== undefined,
    );
    await waitUntil(
      () => (sdk.room.state as any).entities.get(ws.id) !== undefined,
      "the SDK client sees the /ws player",
    );
    sdk.room.send("player:chat", { message: "from the SDK" });
    ws.client.send("player:chat", { message: "from /ws" });
    const [heardBySdk, heardByWs] = await Promise.all([
      sdk.inbox.next("chat:message", (data) => data.fromPlayerId === ws.id),
      ws.client.next("chat:message", (data) => data.fromPlayerId === sdk.id),
    ]);
    assert.equal(heardBySdk.message, "from /ws");
    assert.equal(heardByWs.data.message, "from the SDK");
    ws.client.send("player:move", { x: 30, z: 32 });
    await waitUntil(
      () => (sdk.room.state as any).entities.get(ws.id)?.x === 30,
      "the SDK client sees the /ws player walk",
    );
  });

  it("refuses chat with bidi marks or unpaired surrogates, which would read differently for SDK and /ws clients", async () => {
    const sdk = await joinAsNewPlayer(server);
    sdkPlayers.push(sdk);
    const ws = await connect();
    // A right-to-left mark reorders what follows it; an unpaired surrogate is no character at all: an SDK
    // client is sent U+FFFD in its place (msgpack carries UTF-8), a /ws client the raw escape.
    const odd = ["\u200F12-34", "\u200Eabc", "\u061Cx", "a\uD800b", "\uDC00"];
    for (const [index, message] of odd.entries()) {
      ws.client.send("player:chat", { message }, `odd-${index}`);
      const answer = await ws.client.received((frame) => frame.id === `odd-${index}`);
      assert.equal(answer.event, "error", JSON.stringify(message));
      assert.equal(answer.data.code, "bad_request");
    }
    ws.client.send("player:chat", { message: "plain words" });
    const heard = await sdk.inbox.next("chat:message", (data) => data.fromPlayerId === ws.id);
    assert.equal(heard.message, "plain words", "nothing odd was said before it");
  });
});

/** The entity `id` among those a world:update added or updated. */
function entityIn(update: Frame["data"], id: string): any {
  return [...update.added, ...update.updated].find((entity: any) => entity.id === id);
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("/ws: replies to a connection that another replaced", function () {
  this.timeout(30000);

  it("sends what a frame changed to the connection playing when the tick applies it", async () => {
    // A long tick: the second login should come before the tick that applies the first one's drop.
    const server = await startTestServer({ WORLD_TICK_MS: "1000" });
    try {
      const first = await connectNewPlayer(server);
      const holds = (sync: PlayerSync, slot: number) => sync.inventory.some((entry) => entry.slot === slot);
      let playing = first.client;
      for (const { slot } of first.sync.inventory.slice(0, 3)) {
        playing.send("player:action", { action: "drop", inventorySlot: slot }, "drop");
        const next = await WsClient.connect(server.wsUrl, { header: first.token });
        playing = next;
        // The tick came first: the join's own state shows the drop. Again, with the next item.
        if (!holds((await next.first()).data, slot)) continue;
        const dropped = await next.received(
          (frame) => frame.event === "player:sync" && !holds(frame.data, slot),
        );
        assert.equal(dropped.id, undefined, "the frame was not this connection's");
        await next.close();
        return;
      }
      assert.fail("each drop was applied before the next login joined");
    } finally {
      await server.stop();
    }
  });
});
