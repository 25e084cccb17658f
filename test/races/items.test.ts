// Items through races of the ground, the inventory, disconnects and hops: each is in one place, once,
// in the world and in the database, whatever the order the messages and departures come in.
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { groundItems } from "../../src/db/schema.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import { sleep } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectNewPlayer, type Frame, WsClient, type WsPlayer } from "../support/ws-client.js";

const ADMIN_CODE = "item-races-admin";

const countIn = (inventory: { itemId: string; quantity: number }[], itemId: string) =>
  inventory.filter((entry) => entry.itemId === itemId).reduce((sum, entry) => sum + entry.quantity, 0);
const slotOf = (sync: PlayerSync, itemId: string) => {
  const entry = sync.inventory.find((candidate) => candidate.itemId === itemId);
  if (!entry) throw new Error(`no ${itemId} in the inventory`);
  return entry.slot;
};

/** The latest player:sync the client was sent. */
function latest(player: { client: WsClient; sync: PlayerSync }): PlayerSync {
  const frames = player.client.frames.filter((frame) => frame.event === "player:sync");
  return (frames.at(-1)?.data as PlayerSync | undefined) ?? player.sync;
}

/** The first player:sync (already received after `from`, or yet to come) that passes `test`. */
function syncWhere(
  client: WsClient,
  test: (sync: PlayerSync) => boolean,
  timeoutMs = 8000,
): Promise<PlayerSync> {
  return client
    .received((frame) => frame.event === "player:sync" && test(frame.data as PlayerSync), timeoutMs)
    .then((frame) => frame.data as PlayerSync);
}

/** Every ground item the client has been shown and not shown removed, by id. */
function groundSeen(client: WsClient): Map<string, any> {
  const seen = new Map<string, any>();
  for (const frame of client.frames) {
    if (frame.event !== "world:update") continue;
    for (const entity of [...frame.data.added, ...frame.data.updated])
      if (entity.kind === "item") seen.set(entity.id, { ...seen.get(entity.id), ...entity });
    for (const id of frame.data.removed) seen.delete(id);
  }
  return seen;
}

async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await sleep(25);
  }
}

/** Ticks pass: a few ticks of 50 ms and the write after them. */
const ticks = (n: number) => sleep(50 * n + 100);

describe("items on the ground through races and disconnects", function () {
  this.timeout(60000);
  let server: TestServer;
  const open: WsClient[] = [];

  const connect = async (): Promise<WsPlayer> => {
    const player = await connectNewPlayer(server);
    open.push(player.client);
    return player;
  };
  /** A new connection of the same account (its character), greeted with its player:sync. */
  const relogin = async (token: string): Promise<{ client: WsClient; sync: PlayerSync }> => {
    const client = await WsClient.connect(server.wsUrl, { header: token });
    open.push(client);
    const first = await client.first();
    assert.equal(first.event, "player:sync", `the first frame was ${first.event}`);
    return { client, sync: first.data as PlayerSync };
  };
  const admin = async (client: WsClient) => {
    const told = client.next("chat:message", (data) => data.fromPlayerId === "server");
    client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await told;
  };
  const give = async (player: { client: WsClient; sync: PlayerSync }, itemId: string, quantity: number) => {
    const id = `give-${itemId}-${quantity}-${Math.random()}`;
    player.client.send("player:chat", { message: `/give ${itemId} ${quantity}` }, id);
    const answer = await player.client.received((frame) => frame.id === id);
    assert.equal(answer.event, "player:sync", JSON.stringify(answer.data));
    return answer.data as PlayerSync;
  };
  const stored = async (characterId: string) => (await server.runtime.characters.load(characterId))!;
  const storedGround = async (itemId?: string) => {
    const rows = await server.runtime.database.db.select().from(groundItems).where(eq(groundItems.world, 1));
    return rows.filter((row) => itemId === undefined || row.itemId === itemId);
  };
  /** The frames answering `id`: the player:sync or error it caused. */
  const answerTo = (client: WsClient, id: string) => client.received((frame) => frame.id === id);

  before(async () => {
    server = await startTestServer({
      WORLD_TICK_MS: "50",
      ADMIN_CODE,
      RATE_LIMIT_AUTH_PER_MIN: "1000",
      RATE_LIMIT_REST_PER_MIN: "1000",
      RECONNECT_SECONDS: "2",
    });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
    await sleep(150);
  });
  after(() => server?.stop());

  describe("the ground", () => {
    it("gives a public ground item to exactly one of two players who pick it up in the same tick", async () => {
      const owner = await connect();
      const a = await connect();
      const b = await connect();
      await admin(owner.client);
      const given = await give(owner, "bronze_dagger", 1);
      owner.client.send("player:action", { action: "drop", inventorySlot: slotOf(given, "bronze_dagger") });
      await syncWhere(owner.client, (sync) => countIn(sync.inventory, "bronze_dagger") === 0);
      // 100 ticks of 50 ms: the dagger turns public, and both see it where they all stand.
      await waitUntil(
        () =>
          [...groundSeen(a.client).values()].some((item) => item.type === "bronze_dagger") &&
          [...groundSeen(b.client).values()].some((item) => item.type === "bronze_dagger"),
        "the dagger turning public",
        15000,
      );
      const dagger = [...groundSeen(a.client).values()].find((item) => item.type === "bronze_dagger");
      a.client.send("player:action", { action: "pickup", targetId: dagger.id }, "a-pick");
      b.client.send("player:action", { action: "pickup", targetId: dagger.id }, "b-pick");
      // The pickup happens in the items phase: its sync answers no frame.
      await waitUntil(
        () => !groundSeen(a.client).has(dagger.id) && !groundSeen(b.client).has(dagger.id),
        "the dagger gone from the ground",
      );
      await ticks(4);
      const aHas = countIn(latest(a).inventory, "bronze_dagger");
      const bHas = countIn(latest(b).inventory, "bronze_dagger");
      const errors = [...a.client.frames, ...b.client.frames].filter((frame) => frame.event === "error");
      assert.equal(aHas + bHas, 1, `a ${aHas}, b ${bHas}; errors ${JSON.stringify(errors)}`);
      assert.equal((await storedGround("bronze_dagger")).length, 0, "no dagger row left on the ground");
      const storedTotal =
        countIn((await stored(a.id)).inventory, "bronze_dagger") +
        countIn((await stored(b.id)).inventory, "bronze_dagger");
      assert.equal(storedTotal, 1, "one dagger stored in all");
    });

    it("drop then an immediate logout: the item is on the ground once and not in the inventory after relogin", async () => {
      const player = await connect();
      const swordSlot = slotOf(player.sync, "bronze_sword");
      player.client.send("player:action", { action: "drop", inventorySlot: swordSlot });
      // Closed at once: the drop may or may not be applied before the player leaves.
      await player.client.close();
      open.splice(open.indexOf(player.client), 1);
      const again = await relogin(player.token);
      await ticks(2);
      const inInventory = countIn(again.sync.inventory, "bronze_sword");
      const onGround = [...groundSeen(again.client).values()].filter((item) => item.type === "bronze_sword");
      const rows = (await storedGround("bronze_sword")).filter((row) => row.ownerId === player.id);
      assert.equal(inInventory + onGround.length, 1, `inventory ${inInventory}, ground ${onGround.length}`);
      assert.equal(rows.length, onGround.length, "the stored ground matches the world's");
    });

    it("drop, then a dropped connection and a new login within the kept seat: one sword, in one place", async () => {
      const player = await connect();
      player.client.send("player:action", {
        action: "drop",
        inventorySlot: slotOf(player.sync, "bronze_sword"),
      });
      player.client.socket.terminate();
      const again = await relogin(player.token);
      await ticks(3);
      const inInventory = countIn(latest(again).inventory, "bronze_sword");
      const onGround = [...groundSeen(again.client).values()].filter((item) => item.type === "bronze_sword");
      assert.equal(inInventory + onGround.length, 1, `inventory ${inInventory}, ground ${onGround.length}`);
      await again.client.close();
      const storedTotal =
        countIn((await stored(player.id)).inventory, "bronze_sword") +
        (await storedGround("bronze_sword")).filter((row) => row.ownerId === player.id).length;
      assert.equal(storedTotal, 1);
    });

    it("pickup then an immediate logout: the sword is in the inventory or on the ground, never both", async () => {
      const player = await connect();
      player.client.send("player:action", {
        action: "drop",
        inventorySlot: slotOf(player.sync, "bronze_sword"),
      });
      await syncWhere(player.client, (sync) => countIn(sync.inventory, "bronze_sword") === 0);
      await waitUntil(
        () => [...groundSeen(player.client).values()].some((item) => item.type === "bronze_sword"),
        "the sword on the ground",
      );
      const sword = [...groundSeen(player.client).values()].find((item) => item.type === "bronze_sword");
      player.client.send("player:action", { action: "pickup", targetId: sword.id });
      await sleep(60);
      await player.client.close();
      const again = await relogin(player.token);
      await ticks(2);
      const inInventory = countIn(again.sync.inventory, "bronze_sword");
      const onGround = [...groundSeen(again.client).values()].filter((item) => item.type === "bronze_sword");
      assert.equal(inInventory + onGround.length, 1, `inventory ${inInventory}, ground ${onGround.length}`);
      const rows = (await storedGround("bronze_sword")).filter((row) => row.ownerId === player.id);
      assert.equal(rows.length, onGround.length);
    });

    it("eating and dropping the same food in one tick: one of them, never both", async () => {
      const player = await connect();
      await admin(player.client);
      await give(player, "shrimps", 1);
      // Hurt, so that a bite shows in the health.
      const shrimps = latest(player)
        .inventory.filter((entry) => entry.itemId === "shrimps")
        .map((entry) => entry.slot);
      assert.ok(shrimps.length >= 3);
      // Eat then drop slot A; drop then eat slot B.
      player.client.send("inventory:use", { inventorySlot: shrimps[0] }, "eat-a");
      player.client.send("player:action", { action: "drop", inventorySlot: shrimps[0] }, "drop-a");
      player.client.send("player:action", { action: "drop", inventorySlot: shrimps[1] }, "drop-b");
      player.client.send("inventory:use", { inventorySlot: shrimps[1] }, "eat-b");
      const answers = await Promise.all(
        ["eat-a", "drop-a", "drop-b", "eat-b"].map((id) => answerTo(player.client, id)),
      );
      await ticks(3);
      const events = answers.map((frame) => `${frame.id}:${frame.event}:${frame.data.code ?? ""}`);
      assert.deepEqual(
        answers.map((frame) => frame.event),
        ["player:sync", "error", "player:sync", "error"],
        events.join(", "),
      );
      const onGround = [...groundSeen(player.client).values()].filter((item) => item.type === "shrimps");
      assert.equal(onGround.length, 1, "one shrimp dropped");
      assert.equal(countIn(latest(player).inventory, "shrimps"), shrimps.length - 2);
    });
  });
});

describe("items when a character moves between numbered worlds (WORLDS=2)", function () {
  this.timeout(60000);
  let server: TestServer;
  const clients: WsClient[] = [];
  const login = async (token: string, world?: number) => {
    const url = world === undefined ? server.wsUrl : `${server.wsUrl}?world=${world}`;
    const client = await WsClient.connect(url, { header: token });
    clients.push(client);
    const first = await client.first();
    return { client, first };
  };
  const groundRows = async (ownerId: string) =>
    (await server.runtime.database.db.select().from(groundItems)).filter((row) => row.ownerId === ownerId);

  before(async () => {
    server = await startTestServer({
      WORLDS: "2",
      WORLD_TICK_MS: "50",
      RATE_LIMIT_AUTH_PER_MIN: "1000",
      RATE_LIMIT_REST_PER_MIN: "1000",
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await sleep(200);
  });
  after(() => server?.stop());

  it("a drop sent just before player:hop: the sword is in the inventory or on world 1's ground, once", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const { client, first } = await login(token, 1);
    const sync = first.data as PlayerSync;
    client.send("player:action", { action: "drop", inventorySlot: slotOf(sync, "bronze_sword") });
    client.send("player:hop", { world: 2 }, "hop");
    const hop = await client.received((frame) => frame.id === "hop");
    assert.equal(hop.event, "player:hop", JSON.stringify(hop.data));
    const arrived = await client.received(
      (frame) => frame.event === "player:sync" && client.frames.indexOf(frame) > client.frames.indexOf(hop),
    );
    await sleep(300);
    const rows = (await groundRows(sync.id)).filter((row) => row.itemId === "bronze_sword");
    const held = countIn(latest({ client, sync: arrived.data }).inventory, "bronze_sword");
    assert.equal(held + rows.length, 1, `held ${held}, on the ground ${rows.length}`);
    await client.close();
    await sleep(200);
    const stored = (await server.runtime.characters.load(sync.id))!;
    assert.equal(countIn(stored.inventory, "bronze_sword") + rows.length, 1);
  });

  it("two logins of one character at once in two worlds: one plays, and a drop is not undone by the other", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    // Made first, so that both logins name the same character.
    const made = await login(token, 1);
    const id = (made.first.data as PlayerSync).id;
    await made.client.close();
    await sleep(200);
    const attempts = await Promise.allSettled([login(token, 1), login(token, 2)]);
    await sleep(1500);
    const playing = attempts
      .filter(
        (a): a is PromiseFulfilledResult<{ client: WsClient; first: Frame }> => a.status === "fulfilled",
      )
      .filter(
        ({ value }) =>
          value.first.event === "player:sync" && value.client.socket.readyState === value.client.socket.OPEN,
      );
    assert.ok(playing.length <= 1, `${playing.length} sessions play the character at once`);
    for (const { value } of playing) {
      const sync = value.first.data as PlayerSync;
      value.client.send("player:action", { action: "drop", inventorySlot: slotOf(sync, "coins") }, "drop");
      await value.client.received((frame) => frame.id === "drop");
      await value.client.close();
    }
    await sleep(300);
    const stored = (await server.runtime.characters.load(id))!;
    const onGround = (await groundRows(id)).filter((row) => row.itemId === "coins");
    const total = countIn(stored.inventory, "coins") + onGround.reduce((sum, row) => sum + row.quantity, 0);
    assert.equal(total, 25);
  });
});

/** The real server process, killed with SIGKILL (a crash, no last write) and started again on the same database. */
