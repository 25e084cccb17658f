import assert from "node:assert/strict";
import { Client } from "@colyseus/sdk";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import { sleep, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { interceptWorldWrites } from "../support/world-writes.js";
import { connectNewPlayer, WsClient, type WsPlayer } from "../support/ws-client.js";

const hasCoins = (sync: PlayerSync) => sync.inventory.some((entry) => entry.itemId === "coins");

describe("Clients that connect while the world's write runs or fails", function () {
  this.timeout(30000);
  let server: TestServer;
  const closers: (() => Promise<unknown>)[] = [];
  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100", RECONNECT_SECONDS: "5" });
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
  });
  after(() => server?.stop());

  const connect = async (token?: string): Promise<WsClient> => {
    const header = token ?? (await issueAnonymousToken(server.runtime.jwtSecret)).token;
    const client = await WsClient.connect(server.wsUrl, { header });
    closers.push(() => client.close());
    return client;
  };
  const player = async (): Promise<WsPlayer> => {
    const joined = await connectNewPlayer(server);
    closers.push(() => joined.client.close());
    return joined;
  };
  const dropCoins = ({ client, sync }: WsPlayer) => {
    const slot = sync.inventory.find((entry) => entry.itemId === "coins")!.slot;
    client.send("player:action", { action: "drop", inventorySlot: slot });
  };
  /**
   * Runs `during` while the world waits for its database: `held` played the tick whose write failed
   * (by default it dropped its coins), and every write fails until `database.failing` is turned off.
   */
  async function duringTheWait(
    during: (held: WsPlayer, database: { failing: boolean }) => Promise<void>,
    heldTick: (held: WsPlayer) => void = dropCoins,
  ): Promise<void> {
    const held = await player();
    const database = { failing: true, failed: 0 };
    const restore = interceptWorldWrites(server.runtime.worldStore, async (_write, save) => {
      if (!database.failing) return save();
      database.failed++;
      throw new Error("database unavailable");
    });
    try {
      heldTick(held);
      await until(() => database.failed > 0, "a failed write");
      await during(held, database);
    } finally {
      restore();
    }
  }
  /**
   * Holds the first write that carries `playerId` until `release`: then it commits, or with
   * `release(false)` fails, and every write after it, until `failing` is turned off.
   */
  const holdFirstWriteOf = (playerId: string) => {
    const hold = { held: false, failing: false, release: (_ok = true) => {} };
    const restore = interceptWorldWrites(server.runtime.worldStore, async (write, save) => {
      if (!hold.held && write.characters.some(({ state }) => state.id === playerId)) {
        hold.held = true;
        hold.failing = !(await new Promise<boolean>((resolve) => {
          hold.release = (ok = true) => resolve(ok);
        }));
      }
      if (hold.failing) throw new Error("database unavailable");
      return save();
    });
    return { hold, restore };
  };
  const until = (condition: () => boolean, what: string) => waitForAsync(async () => condition(), what, 5000);

  it("answers a frame sent during the wait only after the player:sync", () =>
    duringTheWait(async (_held, database) => {
      const late = await connect();
      late.send("player:chat", { message: "hello" }, "hello-1");
      await sleep(300);
      assert.equal(late.frames.length, 0, "nothing, not even a refusal, before the player:sync");
      database.failing = false;
      await late.next("chat:message", (data) => data.message === "hello");
      assert.equal(late.frames[0]?.event, "player:sync");
    }));

  it("greets a second login of a player who spoke in the held tick with its player:sync first", () =>
    duringTheWait(
      async (first, database) => {
        const second = await connect(first.token);
        await sleep(300);
        database.failing = false;
        const greeting = await second.first();
        assert.equal(greeting.event, "player:sync");
        assert.equal(hasCoins(greeting.data), false);
        await second.next("world:update");
        await sleep(300);
        assert.deepEqual(
          second.frames.map((frame) => frame.event).filter((event) => event !== "world:update"),
          ["player:sync"],
          "the held tick's own events (its player:sync, the other connection's line) are not sent to it",
        );
      },
      (first) => {
        dropCoins(first);
        first.client.send("player:chat", { message: "said before the wait" }, "say-1");
      },
    ));

  it("opens the view of an SDK client that joins during the wait and reconnects before it ends", () =>
    duringTheWait(async (_held, database) => {
      const sdk = new Client(server.baseUrl);
      sdk.auth.token = (await issueAnonymousToken(server.runtime.jwtSecret)).token;
      const room = await sdk.joinOrCreate("world", { updates: "messages" });
      const reconnectionToken = room.reconnectionToken;
      room.connection.close(4010);
      await sleep(300);
      const again = await sdk.reconnect(reconnectionToken);
      closers.push(() => again.leave());
      const events: string[] = [];
      again.onMessage("*", (event) => events.push(String(event)));
      database.failing = false;
      await until(() => events.includes("world:update"), "a world:update after the wait");
    }));

  it("greets a login made while a tick's write runs with what that write made durable", async () => {
    const first = await player();
    const { hold, restore } = holdFirstWriteOf(first.id);
    try {
      dropCoins(first);
      await until(() => hold.held, "the drop's write under way");
      const second = await connect(first.token);
      await sleep(300);
      assert.equal(second.frames.length, 0, "no greeting while the drop's write runs");
      hold.release(false);
      await sleep(300);
      assert.equal(second.frames.length, 0, "nor while the world waits for its database");
      hold.failing = false;
      const greeting = await second.first();
      assert.equal(hasCoins(greeting.data), false);
      const stored = await server.runtime.characters.load(first.id);
      assert.equal(
        stored?.inventory.some((entry) => entry.itemId === "coins"),
        false,
        "written before told",
      );
    } finally {
      hold.release(false);
      restore();
    }
  });

  it("sends a trade request to a login made while a tick's write runs after its player:sync", async () => {
    const [alice, bob] = [await player(), await player()];
    const { hold, restore } = holdFirstWriteOf(alice.id);
    try {
      dropCoins(alice);
      await until(() => hold.held, "alice's write under way");
      const bobAgain = await connect(bob.token);
      await sleep(200);
      alice.client.send("tradeRequest", { targetPlayerId: bob.id });
      await sleep(300);
      hold.release();
      await bobAgain.next("tradeIncoming");
      assert.equal(bobAgain.frames[0]?.event, "player:sync");
    } finally {
      hold.release();
      restore();
    }
  });

  it("sends an SDK client that joins while a tick's write runs none of that tick's events before its player:sync", async () => {
    const speaker = await player();
    const { hold, restore } = holdFirstWriteOf(speaker.id);
    try {
      speaker.client.send("player:chat", { message: "said in the held tick" });
      dropCoins(speaker);
      await until(() => hold.held, "the speaker's write under way");
      const sdk = new Client(server.baseUrl);
      sdk.auth.token = (await issueAnonymousToken(server.runtime.jwtSecret)).token;
      const room = await sdk.joinOrCreate("world");
      closers.push(() => room.leave());
      const events: string[] = [];
      room.onMessage("*", (type) => events.push(String(type)));
      await sleep(300);
      hold.release();
      await until(() => events.includes("player:sync"), "the SDK client's player:sync");
      await sleep(200);
      assert.equal(events[0], "player:sync");
      assert.ok(!events.includes("chat:message"), "the line said before it joined is not sent to it");
    } finally {
      hold.release();
      restore();
    }
  });
});
