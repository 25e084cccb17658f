import assert from "node:assert/strict";
import { joinAsNewPlayer, leave, type SdkPlayer } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("WorldRoom: joining and moving", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: SdkPlayer[] = [];
  const join = async () => {
    const player = await joinAsNewPlayer(server);
    players.push(player);
    return player;
  };

  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100", ADMIN_CODE: "letmein" });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => leave(player.room)));
  });
  after(() => server?.stop());

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
    await alice.room.send("player:chat", { message: "/admin letmein" });
    await alice.inbox.next("chat:message", (m) => m.fromPlayerId === "server");
    alice.room.send("player:chat", { message: "/tp 60 60" });
    await waitFor(() => entityOf(alice, alice.id)?.x === 60, "alice teleported");
    const carol = await join();
    await waitFor(() => entityOf(carol, bob.id) !== undefined, "carol sees bob");
    assert.ok(entityOf(carol, carol.id), "carol sees herself");
    assert.equal(entityOf(carol, alice.id), undefined, "alice is 28 tiles away, beyond view distance");
  });

  it("walks along a path one tile a tick", async () => {
    const player = await join();
    const positions: string[] = [];
    player.room.onStateChange(() => {
      const self = entityOf(player, player.id);
      if (self && positions.at(-1) !== `${self.x},${self.z}`) positions.push(`${self.x},${self.z}`);
    });
    player.room.send("player:move", { x: 32, z: 36 });
    await waitFor(() => positions.at(-1) === "32,36", "arrived");
    assert.deepEqual(positions.slice(-5), ["32,32", "32,33", "32,34", "32,35", "32,36"]);
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
    player.room.send("bank:deposit", { inventorySlot: 99, quantity: 1 });
    assert.equal((await player.inbox.next("error")).code, "bad_request");
    player.room.send("player:chat", { message: "still here" });
    const chat = await player.inbox.next("chat:message", (m) => m.fromPlayerId === player.id);
    assert.equal(chat.message, "still here");
    assert.deepEqual(entityPosition(player), { x: 32, z: 32 });
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

  it("answers a flood with rate_limited", async () => {
    const player = await join();
    for (let i = 0; i < 70; i++) player.room.send("player:move", { x: 32, z: 33 });
    const error = await player.inbox.next("error", (e) => e.code === "rate_limited");
    assert.match(error.message, /Too many/);
  });
});

function entityOf(player: SdkPlayer, id: string): any {
  return (player.room.state as any)?.entities?.get(id);
}

function entityPosition(player: SdkPlayer) {
  const self = entityOf(player, player.id);
  return self && { x: self.x, z: self.z };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
