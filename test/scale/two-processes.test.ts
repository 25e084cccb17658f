import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { Client, type Room } from "@colyseus/sdk";
import { sql } from "drizzle-orm";
import { Redis } from "ioredis";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { AgentRepository } from "../../src/db/agents.js";
import { CharacterRepository } from "../../src/db/characters.js";
import { openDatabase } from "../../src/db/database.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { Inbox, leave, sleep, waitForAsync } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, scaleOutEnv, startServerProcess } from "../support/processes.js";
import { refusedUpgrade, WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
/** The two processes started first, then a newcomer and two replacements (TEST_PORT + 53..57). */
const [FIRST_PORT, SECOND_PORT, NEWCOMER_PORT, REPLACEMENT_PORT, SPARE_PORT] = PROCESS_PORTS.scale;
/** A Redis database of its own, emptied first, so no other suite's keys are in the way. */
const REDIS_DB = 7;
const ADMIN_CODE = "two-processes-admin-code";

interface Player {
  id: string;
  name: string;
  world: Room;
  inbox: Inbox;
  sdk: Client;
  trade?: Room;
  tradeInbox: Inbox;
}

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

/** `promise`, or a failure naming `step` once it has taken `ms`: a hang then says where it was. */
function within<T>(step: string, promise: Promise<T>, ms = 20000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

scaleOut(
  "server processes on one Redis and one PostgreSQL (TEST_REDIS_URL and TEST_DATABASE_URL)",
  function () {
    this.timeout(90000);
    const secret = randomBytes(32).toString("hex");
    let servers: ServerProcess[] = [];
    let database: { url: string; drop(): Promise<void> };
    let redis: Redis;

    const redisUrl = `${redisBase}/${REDIS_DB}`;
    const env = (port: number) => ({
      ...scaleOutEnv(port, { redisUrl, databaseUrl: database.url, secret, dataDir: "/tmp/tileworld-scale" }),
      // Every process is configured with the same agent: it must run once, beside the world.
      AGENTS: "Keeper",
      ADMIN_CODE,
    });

    before(async () => {
      redis = new Redis(redisUrl);
      await redis.flushdb();
      database = await freshDatabaseUrl(postgresUrl!);
      // One at a time: both would apply the migrations otherwise.
      servers.push(await startServerProcess(FIRST_PORT, env(FIRST_PORT)));
      servers.push(await startServerProcess(SECOND_PORT, env(SECOND_PORT)));
    });
    // A test that timed out while a process was stopped (SIGSTOP) would leave it so for the tests after.
    afterEach(() => {
      for (const { child } of servers)
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGCONT");
    });
    after(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      servers = [];
      await redis?.flushdb();
      redis?.disconnect();
      await database?.drop();
    });

    /** The worlds listed in Redis (one, unless a world is being replaced). */
    async function worldListings(): Promise<{ publicAddress: string }[]> {
      const listings = Object.values(await redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
      return listings.filter((room) => room.name === "world");
    }

    /** The running process holding the world (by its listing in Redis), then another running one. */
    async function worldProcesses(): Promise<[home: ServerProcess, away: ServerProcess]> {
      const [world] = await worldListings();
      assert.ok(world, "the world is listed");
      const running = servers.filter(({ child }) => child.exitCode === null && child.signalCode === null);
      const home = running.find((server) => world.publicAddress === `127.0.0.1:${server.port}`)!;
      return [home, running.find((server) => server !== home)!];
    }

    /** A REST token of a new anonymous account, signed in through `server`. */
    async function signIn(server: ServerProcess): Promise<string> {
      const response = await fetch(`${server.baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
      return (await response.json()).token;
    }

    /** An agent endpoint through `server`: a GET, or a POST of `body`. */
    async function call(server: ServerProcess, token: string, path: string, body?: unknown) {
      const response = await fetch(`${server.baseUrl}/api/agents${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    }

    /** Waits until the world is listed once, on `server` (a replaced world is listed again until it closes). */
    async function onlyWorldOn(server: ServerProcess): Promise<void> {
      await waitForAsync(async () => {
        const worlds = await worldListings();
        return worlds.length === 1 && worlds[0]!.publicAddress === `127.0.0.1:${server.port}`;
      }, `the world listed on ${server.port} alone`);
    }

    async function join(server: ServerProcess): Promise<Player> {
      const sdk = new Client(server.baseUrl);
      sdk.auth.token = (await issueAnonymousToken(new TextEncoder().encode(secret))).token;
      const inbox = new Inbox();
      const world = await sdk.joinOrCreate("world");
      world.onMessage("*", (event, data) => inbox.push(String(event), data));
      const sync = await inbox.next("player:sync", () => true, 5000, true);
      return { id: sync.id, name: sync.name, world, inbox, sdk, tradeInbox: new Inbox() };
    }

    /** A trade of two players up to its confirm screen, `alice` offering 5 of her 25 coins: its id. */
    async function tradeToConfirmScreen(alice: Player, bob: Player): Promise<string> {
      alice.world.send("tradeRequest", { targetPlayerId: bob.id });
      const { tradeId } = await bob.inbox.next("tradeIncoming");
      bob.world.send("tradeRequestRespond", { tradeId, accept: true });
      for (const player of [alice, bob]) {
        await player.inbox.next("tradeStarted", (s) => s.tradeId === tradeId, 10000, true);
        player.trade = await player.sdk.joinById(tradeId);
        player.trade.onMessage("*", (event, data) => player.tradeInbox.push(String(event), data));
      }
      const coinsSlot = (await alice.inbox.next("player:sync", () => true, 5000, true)).inventory.find(
        (e: { itemId: string }) => e.itemId === "coins",
      ).slot;
      alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: coinsSlot, quantity: 5 });
      await bob.tradeInbox.next("tradeUpdated", (u) => u.theirOffer.length === 1, 10000, true);
      for (const player of [alice, bob]) player.trade!.send("tradeAccept", { tradeId });
      await alice.tradeInbox.next("tradeConfirmScreen", () => true, 10000, true);
      return tradeId;
    }

    /** The trade's room runs on the other process than the world's, as their listings in Redis say. */
    async function assertTradeApartFromWorld(tradeId: string): Promise<void> {
      const listings = Object.values(await redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
      const worldListing = listings.find((room) => room.name === "world");
      const tradeListing = listings.find((room) => room.roomId === tradeId);
      assert.ok(worldListing && tradeListing, "both rooms are listed in Redis");
      assert.notEqual(tradeListing.processId, worldListing.processId, "the trade runs on the other process");
    }

    /** The stored coins of each player. */
    async function storedCoins(...players: Player[]): Promise<(number | undefined)[]> {
      const handle = await openDatabase({ url: database.url });
      try {
        const characters = new CharacterRepository(handle.db);
        return await Promise.all(
          players.map(
            async ({ id }) =>
              (await characters.load(id))?.inventory.find((e) => e.itemId === "coins")?.quantity,
          ),
        );
      } finally {
        await handle.close();
      }
    }

    it("runs a trade whose room lives on the other process than the world", async () => {
      const alice = await join(servers[0]!);
      const bob = await join(servers[1]!);
      assert.equal(bob.world.roomId, alice.world.roomId, "one world, reached through either process");

      const tradeId = await tradeToConfirmScreen(alice, bob);
      await assertTradeApartFromWorld(tradeId);

      const handle = await openDatabase({ url: database.url });
      try {
        // The database is slow: alice's row stays locked for longer than Colyseus's 2 s between processes.
        await handle.db.transaction(async (tx) => {
          await tx.execute(sql`select id from characters where id = ${alice.id} for update`);
          for (const player of [alice, bob]) player.trade!.send("tradeAccept", { tradeId });
          await sleep(3000);
        });
      } finally {
        await handle.close();
      }
      const completed = await bob.tradeInbox.next("tradeCompleted", () => true, 10000, true);
      assert.deepEqual(completed.receivedItems, [{ itemId: "coins", quantity: 5 }]);
      assert.deepEqual(await storedCoins(alice, bob), [20, 30]);
      await Promise.all([alice, bob].flatMap((player) => [leave(player.trade), leave(player.world)]));
    });
    it("ends a trade whose room is on the other process when an admin kicks a trader: nothing moves", async () => {
      const alice = await join(servers[0]!);
      const bob = await join(servers[1]!);
      const tradeId = await tradeToConfirmScreen(alice, bob);
      await assertTradeApartFromWorld(tradeId);
      const closed = (room: Room) => new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));
      const [aliceWorldClosed, aliceTradeClosed] = [closed(alice.world), closed(alice.trade!)];

      const token = (await issueAnonymousToken(new TextEncoder().encode(secret))).token;
      const admin = await WsClient.connect(`ws://127.0.0.1:${servers[1]!.port}/ws`, { header: token });
      admin.send("player:chat", { message: `/admin ${ADMIN_CODE}` }, "admin");
      await admin.received((frame) => frame.id === "admin");
      admin.send("player:chat", { message: `/kick ${alice.name}` }, "kick");
      const notice = await admin.received((frame) => frame.id === "kick", 10000);
      assert.equal(notice.data.message, `${alice.name} was removed from world 1; they may log in again.`);

      // The world on one process ends the trade on the other; the trade's room tells both, once.
      assert.equal(await within("alice's world connection", aliceWorldClosed, 5000), 4403);
      const told = await bob.tradeInbox.next("tradeCancelled", () => true, 10000, true);
      assert.deepEqual(told, { tradeId, reason: "partner_disconnected" });
      assert.equal(await within("alice's trade connection", aliceTradeClosed, 5000), 4000, "let go");
      const aliceTold = [...alice.tradeInbox.received, ...alice.inbox.received].filter(
        ({ event, data }) => event === "tradeCancelled" && data.tradeId === tradeId,
      );
      assert.deepEqual(
        aliceTold.map(({ data }) => data.reason),
        ["disconnected"],
        "the kicked player's trade connection is told once",
      );
      await Promise.all([admin.close(), leave(bob.trade), leave(bob.world)]);
      await waitForAsync(
        async () => isDeepStrictEqual(await storedCoins(alice, bob), [25, 25]),
        "both players' coins stored as before the trade",
      );
    });
    it("relays a /ws connection that reached the process without the world to the one with it", async () => {
      const opener = await join(servers[0]!);
      const [home, away] = await worldProcesses();

      // One player through each process: anonymous, without a token, on the process away from the world.
      const token = (await issueAnonymousToken(new TextEncoder().encode(secret))).token;
      const local = await WsClient.connect(`ws://127.0.0.1:${home.port}/ws`, { header: token });
      const relayed = await WsClient.connect(`ws://127.0.0.1:${away.port}/ws`);
      const [localSync, relayedSync] = await Promise.all([local.first(), relayed.first()]);
      assert.equal(localSync.event, "player:sync");
      assert.equal(relayedSync.event, "player:sync");
      const localId = localSync.data.id;
      const relayedId = relayedSync.data.id;

      const seen = (client: WsClient, id: string) =>
        client.received(
          (frame) =>
            frame.event === "world:update" &&
            [...frame.data.added, ...frame.data.updated].some((entity: { id: string }) => entity.id === id),
          10000,
        );
      await Promise.all([seen(local, relayedId), seen(relayed, localId)]);

      // A request through the relay is answered with its id; chat goes both ways.
      relayed.send("player:move", { x: "east", z: 1 }, "r1");
      const refused = await relayed.received((frame) => frame.event === "error" && frame.id === "r1");
      assert.equal(refused.data.code, "bad_request");
      relayed.send("player:chat", { message: "through the relay" });
      local.send("player:chat", { message: "back to you" });
      const [heard, heardBack] = await Promise.all([
        local.next("chat:message", (data) => data.fromPlayerId === relayedId, 10000),
        relayed.next("chat:message", (data) => data.fromPlayerId === localId, 10000),
      ]);
      assert.equal(heard.data.message, "through the relay");
      assert.equal(heardBack.data.message, "back to you");

      // Logging out through the relay takes the player out of the world.
      const left = local.next("world:update", (data) => data.removed.includes(relayedId), 10000);
      await relayed.close();
      await left;
      await Promise.all([local.close(), leave(opener.world)]);
    });
    it("counts a relayed /ws connection once against its client's REST limit, where it arrived", async () => {
      const opener = await join(servers[0]!);
      const [, away] = await worldProcesses();
      const restCounts = async () => {
        const keys = await redis.keys("tileworld:rate-limit:rest:*");
        const counts = keys.length > 0 ? await redis.mget(keys) : [];
        return counts.reduce((sum, count) => sum + Number(count), 0);
      };
      // The world's process sees the relayed connections come from the relaying process's address, which
      // here is the client's own: counted there too, each would count twice.
      const keys = await redis.keys("tileworld:rate-limit:rest:*");
      if (keys.length > 0) await redis.del(...keys);
      const clients: WsClient[] = [];
      for (let i = 0; i < 3; i++) {
        const client = await WsClient.connect(`ws://127.0.0.1:${away.port}/ws`);
        clients.push(client);
        assert.equal((await client.first()).event, "player:sync");
      }
      assert.equal(await restCounts(), 3);
      await Promise.all([...clients.map((client) => client.close()), leave(opener.world)]);
    });
    it("lets two /ws players, one through each process, trade", async () => {
      const opener = await join(servers[0]!);
      const token = () => issueAnonymousToken(new TextEncoder().encode(secret)).then(({ token }) => token);
      const [alice, bob] = await Promise.all(
        servers.map(async (server) =>
          WsClient.connect(`ws://127.0.0.1:${server.port}/ws`, { header: await token() }),
        ),
      );
      const [aliceSync, bobSync] = (await Promise.all([alice!.first(), bob!.first()])).map(
        (frame) => frame.data,
      );
      const incoming = bob!.next("tradeIncoming", () => true, 10000);
      alice!.send("tradeRequest", { targetPlayerId: bobSync.id });
      const { tradeId } = (await incoming).data;
      const started = [alice!, bob!].map((client) => client.next("tradeStarted", () => true, 10000));
      bob!.send("tradeRequestRespond", { tradeId, accept: true });
      await Promise.all(started);
      const listings = Object.values(await redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
      const world = listings.find((room) => room.name === "world");
      const trade = listings.find((room) => room.roomId === tradeId);
      assert.equal(trade?.processId, world?.processId, "a trade of /ws players runs beside the world");
      const coins = aliceSync.inventory.find((entry: { itemId: string }) => entry.itemId === "coins");
      const offered = bob!.next("tradeUpdated", (data) => data.theirOffer.length === 1, 10000);
      alice!.send("tradeAddItem", { tradeId, inventorySlot: coins.slot, quantity: 5 });
      await offered;
      for (const client of [alice!, bob!]) client.send("tradeAccept", { tradeId });
      await alice!.next("tradeConfirmScreen", () => true, 10000);
      const completed = bob!.next("tradeCompleted", () => true, 10000);
      for (const client of [alice!, bob!]) client.send("tradeAccept", { tradeId });
      assert.deepEqual((await completed).data.receivedItems, [{ itemId: "coins", quantity: 5 }]);
      await Promise.all([alice!.close(), bob!.close(), leave(opener.world)]);
    });

    it("runs each agent once, beside the world, and answers the agent endpoints alike on both processes", async () => {
      const [home, away] = await worldProcesses();
      const owner = await signIn(away);
      const created = await call(away, owner, "", { name: "Forester" });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { agentId } = created.body;

      // Both agents are in the world, once: no copy on the other process replaced the other.
      const onlineEverywhere = async () => {
        for (const server of [home, away]) {
          const listed = await call(server, owner, "");
          assert.equal(listed.status, 200, JSON.stringify(listed.body));
          const { agents } = listed.body;
          const names = agents
            .filter((agent: { online: boolean }) => agent.online)
            .map((a: { name: string }) => a.name);
          if (names.sort().join() !== "Forester,Keeper") return false;
        }
        return true;
      };
      await waitForAsync(onlineEverywhere, "Keeper and Forester online, seen from both processes");

      // A goal set through one process is the goal the agent works towards, read through the other.
      const set = await call(away, owner, `/${agentId}/goal`, { type: "mining", target: 40 });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const read = await call(home, owner, `/${agentId}/goal`);
      assert.deepEqual([read.body.goal.type, read.body.goal.target], ["mining", 40]);
      // A refusal keeps its status and code through the other process.
      const stranger = await signIn(home);
      const refused = await call(away, stranger, `/${agentId}/goal/stop`, {});
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, "forbidden");
    });

    it("stores nothing for agent requests that reach a world after another replaced it", async () => {
      const [home, away] = await worldProcesses();
      const owner = await signIn(away);
      const created = await call(away, owner, "", { name: "Sprout" });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { agentId } = created.body;

      home.child.kill("SIGSTOP");
      let stale: { status: number }[];
      try {
        // Sent to the stalled world, which takes them only once it runs again; meanwhile its process is
        // taken for dead, and the client told so.
        stale = await within(
          "the requests to the stalled world",
          Promise.all([
            call(away, owner, `/${agentId}/goal`, { type: "woodcutting", target: 30 }),
            call(away, owner, "", { name: "Sapling" }),
          ]),
        );
        // The world opens on the other process, with the agents as stored, and is told the owner's goal.
        assert.equal((await call(away, owner, "")).status, 200);
        const set = await call(away, owner, `/${agentId}/goal`, { type: "mining", target: 40 });
        assert.equal(set.status, 200, JSON.stringify(set.body));
      } finally {
        home.child.kill("SIGCONT");
      }
      assert.deepEqual(
        stale.map(({ status }) => status),
        [503, 503],
      );
      // The stalled world runs the requests it was sent, then finds itself replaced and closes.
      await sleep(1000);
      await onlyWorldOn(away);

      // The name the client was told was not taken is free, and the goal stored is the one set last.
      const retried = await call(away, owner, "", { name: "Sapling" });
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      const handle = await openDatabase({ url: database.url });
      try {
        const stored = (await new AgentRepository(handle.db).all()).find((row) => row.id === agentId);
        assert.ok(stored, "the agent is stored");
        const { type, target } = stored.goal as { type: string; target: number };
        assert.deepEqual([type, target], ["mining", 40]);
      } finally {
        await handle.close();
      }
      // The agents that follow count Keeper and Forester alone.
      for (const id of [agentId, retried.body.agentId]) {
        const removed = await fetch(`${away.baseUrl}/api/agents/${id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${owner}` },
        });
        assert.equal(removed.status, 204);
      }
    });

    /** Both agents (Keeper, and Forester made above) online, as the agent endpoints of `server` say. */
    async function agentsOnline(server: ServerProcess): Promise<boolean> {
      // A token of its own making: signing in on every poll would run into the authentication limit.
      const { token } = await issueAnonymousToken(new TextEncoder().encode(secret));
      const response = await fetch(`${server.baseUrl}/api/agents`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (response.status !== 200) return false;
      const { agents } = await response.json();
      return agents.filter((agent: { online: boolean }) => agent.online).length === 2;
    }

    it("opens the world on another process when the world's process shuts down, with no one asking", async () => {
      const [home, away] = await worldProcesses();
      assert.equal(await home.stop("SIGTERM"), 0);
      // Nothing connects and nothing asks for the agents: the world and its agents come back by themselves.
      await waitForAsync(async () => {
        const worlds = await worldListings();
        return worlds.length === 1 && worlds[0]!.publicAddress === `127.0.0.1:${away.port}`;
      }, "the world listed on the process that is left");
      await waitForAsync(() => agentsOnline(away), "both agents in the world again");
      // Two processes again for the tests that follow.
      servers.push(await startServerProcess(REPLACEMENT_PORT, env(REPLACEMENT_PORT)));
    });

    it("fails a trade within seconds when its world's process dies before the swap, and never swaps", async () => {
      const [home, away] = await worldProcesses();
      const alice = await join(away);
      const bob = await join(away);
      const tradeId = await tradeToConfirmScreen(alice, bob);
      const listings = Object.values(await redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
      const trade = listings.find((room) => room.roomId === tradeId);
      assert.equal(trade?.publicAddress, `127.0.0.1:${away.port}`, "the trade runs away from the world");

      // The swap's request waits, unread, at the world's stopped process; then that process dies.
      home.child.kill("SIGSTOP");
      for (const player of [alice, bob]) player.trade!.send("tradeAccept", { tradeId });
      await sleep(500);
      await home.stop("SIGKILL");
      // Told well before the 30 s the trade would wait for an answer.
      for (const player of [alice, bob]) {
        const cancelled = await player.tradeInbox.next("tradeCancelled", () => true, 10000, true);
        assert.equal(cancelled.reason, "commit_failed");
      }
      assert.deepEqual(await storedCoins(alice, bob), [25, 25], "nothing moved");

      // The world opens again on the process that is left, with what is stored: nothing moves there either.
      await waitForAsync(() => agentsOnline(away), "the world and its agents on the process that is left");
      const [again] = await Promise.all([join(away), leave(alice.trade), leave(bob.trade)]);
      assert.deepEqual(await storedCoins(alice, bob), [25, 25]);
      await leave(again.world);
      // Two processes again for the tests that follow.
      servers.push(await startServerProcess(SPARE_PORT, env(SPARE_PORT)));
    });

    it("closes a world whose process stalled and was replaced meanwhile, saving nothing of it", async () => {
      const [home, away] = await worldProcesses();
      const token = () => issueAnonymousToken(new TextEncoder().encode(secret)).then(({ token }) => token);
      const stalled = await WsClient.connect(`ws://127.0.0.1:${home.port}/ws`, { header: await token() });
      const { id, position } = (await stalled.first()).data;

      home.child.kill("SIGSTOP");
      try {
        // Through the other process, a connection and a request find the world's process silent (its
        // kernel takes the connection; nobody answers the upgrade): it is taken for dead, its world
        // unlisted, and the next connection there opens the world anew.
        const relayed = await within("the relayed upgrade", refusedUpgrade(`ws://127.0.0.1:${away.port}/ws`));
        assert.equal(relayed.status, 503);
        const refused = await within(
          "the relayed request",
          fetch(`${away.baseUrl}/api/v1/world`, { headers: { authorization: `Bearer ${await token()}` } }),
        );
        assert.equal(refused.status, 503);
        const newcomer = await within(
          "the newcomer's connection",
          WsClient.connect(`ws://127.0.0.1:${away.port}/ws`, { header: await token() }),
        );
        assert.equal((await within("the newcomer's first frame", newcomer.first())).event, "player:sync");
        assert.equal((await worldProcesses())[0], away, "the world runs on the other process now");
        await newcomer.close();
      } finally {
        home.child.kill("SIGCONT");
      }

      // The stalled world resumes, finds the lease taken, and closes without saving: the step taken after
      // the replacement is not kept.
      stalled.send("player:move", { x: position.x + 1, z: position.z });
      assert.equal((await within("the replaced world's close", stalled.closed)).code, 4001);
      const viewer = await token();
      const stored = await (
        await fetch(`${away.baseUrl}/api/characters/${id}/position`, {
          headers: { authorization: `Bearer ${viewer}` },
        })
      ).json();
      assert.deepEqual(stored.position, position);
      // Colyseus lists a process's rooms again once it answers; the replaced world, closed, is not.
      await waitForAsync(async () => {
        const worlds = await worldListings();
        return worlds.length === 1 && worlds[0]!.publicAddress === `127.0.0.1:${away.port}`;
      }, "only the new world listed");
    });

    // The last three end the world's process in turn (the two before end one each too).
    it("answers /ws with 503 while the world's process cannot be reached, then opens the world again with its agents", async () => {
      const [home, away] = await worldProcesses();
      // Killed, it leaves its listing behind: the other process still believes the world is there.
      await home.stop("SIGKILL");
      const refused = await refusedUpgrade(`ws://127.0.0.1:${away.port}/ws`);
      assert.equal(refused.status, 503);
      assert.equal(JSON.parse(refused.body).error.code, "unavailable");

      // The failed relay has the matchmaker check that process: found gone, its world is unlisted, and
      // a later connection opens the world on the process that is left; the agents follow it there.
      const token = (await issueAnonymousToken(new TextEncoder().encode(secret))).token;
      let player: WsClient | undefined;
      await waitForAsync(async () => {
        player = await WsClient.connect(`ws://127.0.0.1:${away.port}/ws`, { header: token }).catch(
          () => undefined,
        );
        return player;
      }, "a /ws connection to the process that is left");
      assert.equal((await player!.first()).event, "player:sync");
      assert.equal((await worldProcesses())[0], away, "the world now runs on the process that is left");
      await waitForAsync(() => agentsOnline(away), "both agents back in the world");
      await player!.close();
    });

    it("answers the REST API with 503 while the world's process cannot be reached, then opens the world again", async () => {
      const newcomer = await startServerProcess(NEWCOMER_PORT, env(NEWCOMER_PORT));
      servers.push(newcomer);
      const [home] = await worldProcesses();
      await home.stop("SIGKILL");
      // An agent request may take up to 10 s where the world is alive; to a dead process it is not left
      // to wait that out (the stalled-process test above sees /api/v1/world's 503).
      const asked = Date.now();
      const refused = await fetch(`${newcomer.baseUrl}/api/agents`, {
        headers: {
          authorization: `Bearer ${(await issueAnonymousToken(new TextEncoder().encode(secret))).token}`,
        },
      });
      assert.equal(refused.status, 503);
      assert.equal((await refused.json()).error.code, "unavailable");
      assert.ok(Date.now() - asked < 7000, `answered after ${Date.now() - asked} ms`);
      // Found gone by that request, the old world is unlisted: the agent endpoints open it again here.
      await waitForAsync(() => agentsOnline(newcomer), "both agents in a world on the newcomer");
      assert.equal((await worldProcesses())[0], newcomer);
    });

    it("opens the world at start when the process that held it died with every other", async () => {
      const [last] = await worldProcesses();
      await last.stop("SIGKILL");
      const restarted = await startServerProcess(FIRST_PORT, env(FIRST_PORT));
      servers.push(restarted);
      // Listed as soon as the process answers: not left to a player or an agent request.
      assert.equal((await worldProcesses())[0], restarted);
      await waitForAsync(() => agentsOnline(restarted), "both agents in the world again");
    });
  },
);
