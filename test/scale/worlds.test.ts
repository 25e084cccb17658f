import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { relayPass } from "../../src/ws/relay-pass.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { waitForAsync } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, scaleOutEnv, startServerProcess } from "../support/processes.js";
import { type Frame, refusedUpgrade, WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
const [FIRST_PORT, SECOND_PORT, THIRD_PORT] = PROCESS_PORTS.worlds;
/** A Redis database of its own, emptied first, so no other suite's keys are in the way. */
const REDIS_DB = 9;

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

interface Player {
  client: WsClient;
  id: string;
  token: string;
  sync: any;
}

scaleOut("numbered worlds over two server processes (WORLDS=2, Redis and PostgreSQL)", function () {
  this.timeout(90000);
  const secret = randomBytes(32).toString("hex");
  let first: ServerProcess;
  let second: ServerProcess;
  let database: { url: string; drop(): Promise<void> };
  let redis: Redis;
  const players: Player[] = [];

  const redisUrl = `${redisBase}/${REDIS_DB}`;
  const env = (port: number) => ({
    ...scaleOutEnv(port, { redisUrl, databaseUrl: database.url, secret, dataDir: "/tmp/tileworld-worlds" }),
    WORLDS: "2",
  });

  before(async () => {
    redis = new Redis(redisUrl);
    await redis.flushdb();
    database = await freshDatabaseUrl(postgresUrl!);
    // One after the other: each opens the lowest world that runs nowhere.
    first = await startServerProcess(FIRST_PORT, env(FIRST_PORT));
    second = await startServerProcess(SECOND_PORT, env(SECOND_PORT));
  });
  after(async () => {
    await Promise.all(players.map((player) => player.client.close().catch(() => {})));
    await Promise.all([first, second].map((server) => server?.stop()));
    await redis?.flushdb();
    redis?.disconnect();
    await database?.drop();
  });

  /** Where each world is listed: its public address, by world id. */
  async function worldAddresses(): Promise<Map<number, string[]>> {
    const listings = Object.values(await redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
    const where = new Map<number, string[]>();
    for (const room of listings.filter((listing) => listing.name === "world")) {
      const id = room.metadata?.world as number;
      where.set(id, [...(where.get(id) ?? []), room.publicAddress]);
    }
    return where;
  }
  const address = (server: ServerProcess) => `127.0.0.1:${server.port}`;

  async function connect(server: ServerProcess, world: number, token?: string): Promise<Player> {
    const bearer = token ?? (await issueAnonymousToken(new TextEncoder().encode(secret))).token;
    const client = await WsClient.connect(`ws://127.0.0.1:${server.port}/ws?world=${world}`, {
      header: bearer,
    });
    const first = await client.first();
    assert.equal(first.event, "player:sync", `greeted with ${JSON.stringify(first)}`);
    const player = { client, id: first.data.id, token: bearer, sync: first.data };
    players.push(player);
    return player;
  }

  async function worldOf(server: ServerProcess, token: string): Promise<number> {
    const response = await fetch(`${server.baseUrl}/api/v1/world`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 200);
    return (await response.json()).world;
  }

  const shows = (id: string) => (frame: Frame) =>
    frame.event === "world:update" && frame.data.added?.some((entity: any) => entity.id === id);
  const showsItem = (itemId: string) => (frame: Frame) =>
    frame.event === "world:update" &&
    frame.data.added?.some((entity: any) => entity.kind === "item" && entity.type === itemId);

  let alice: Player;
  let bob: Player;

  it("holds one world on each process, and plays each world's players apart, relayed or not", async () => {
    assert.deepEqual(
      await worldAddresses(),
      new Map([
        [1, [address(first)]],
        [2, [address(second)]],
      ]),
    );
    // Alice reaches world 1's process; Bob reaches it too and is relayed to world 2's.
    alice = await connect(first, 1);
    bob = await connect(first, 2);
    // Carol reaches world 2's process and is relayed to world 1's, at Alice's spawn.
    const carol = await connect(second, 1);
    await alice.client.received(shows(carol.id));
    assert.ok(!alice.client.frames.some(shows(bob.id)), "world 1 does not show world 2's player");
    assert.ok(!bob.client.frames.some(shows(alice.id)), "nor world 2 world 1's");
    assert.equal(await worldOf(first, bob.token), 2);
    assert.equal(await worldOf(second, alice.token), 1);

    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    assert.equal((await alice.client.next("tradeError")).data.reason, "not_in_same_world");
    const worlds = await (
      await fetch(`${second.baseUrl}/api/v1/worlds`, { headers: { authorization: `Bearer ${alice.token}` } })
    ).json();
    assert.deepEqual(
      worlds.worlds.map((world: any) => [world.id, world.playersOnline]),
      [
        [1, 2],
        [2, 1],
      ],
    );
    await carol.client.close();
  });

  it("relays a /ws connection once at most: never to its own address, never on again", async () => {
    const token = (await issueAnonymousToken(new TextEncoder().encode(secret))).token;
    const unavailable = {
      code: "unavailable",
      message: "the world's server process cannot be reached; retry later",
    };
    // A process given the second's PUBLIC_ADDRESS, as instances sharing one environment would be: world
    // 2 is listed at its own address, so relaying there would come back to itself, and on, and on.
    const third = await startServerProcess(THIRD_PORT, {
      ...env(THIRD_PORT),
      PUBLIC_ADDRESS: address(second),
    });
    try {
      const refused = await refusedUpgrade(`ws://127.0.0.1:${THIRD_PORT}/ws?world=2`, { header: token });
      assert.deepEqual(
        { status: refused.status, body: JSON.parse(refused.body) },
        { status: 503, body: { error: unavailable } },
      );
      await waitForAsync(
        async () => /each process needs an address of its own/.test(third.output()),
        "the reason logged",
      );
    } finally {
      await third.stop();
    }
    // A connection that was relayed already (it shows the processes' pass) to a process without its world
    // is refused there, not relayed again.
    const relayed = await refusedUpgrade(
      `ws://127.0.0.1:${first.port}/ws?world=2`,
      { header: token },
      relayPass(new TextEncoder().encode(secret)).headers,
    );
    assert.deepEqual(
      { status: relayed.status, body: JSON.parse(relayed.body) },
      { status: 503, body: { error: unavailable } },
    );
    await waitForAsync(
      async () =>
        /relayed here for world 2, which runs on another process: refused, not relayed again/.test(
          first.output(),
        ),
      "the refusal logged",
    );
  });

  it("hops a player to the world on the other process with its items, on the same connection", async () => {
    // What Alice holds changes first: she eats a shrimp.
    const shrimp = alice.sync.inventory.find((entry: any) => entry.itemId === "shrimps");
    alice.client.send("inventory:use", { inventorySlot: shrimp.slot }, "eat");
    const eaten = await alice.client.received((frame) => frame.id === "eat" && frame.event === "player:sync");
    alice.client.send("player:hop", { world: 2 }, "hop");
    const answer = await alice.client.received((frame) => frame.event === "player:hop");
    assert.deepEqual(answer.data, { from: 1, world: 2 });
    const frames = alice.client.frames;
    const arrived = await alice.client.received(
      (frame) => frame.event === "player:sync" && frames.indexOf(frame) > frames.indexOf(answer),
      10000,
    );
    assert.deepEqual(arrived.data.inventory, eaten.data.inventory, "she arrives with what she held");
    await bob.client.received(shows(alice.id));
    assert.equal(await worldOf(first, alice.token), 2);
    alice.sync = arrived.data;
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    await bob.client.next("tradeIncoming");
  });

  /** A REST call with the bearer token, answered with its status and JSON body. */
  async function rest(server: ServerProcess, path: string, token: string, body?: unknown) {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  let wanderer: { agentId: string; characterId: string };
  /** An agent of world 1, made without naming a world. */
  let homebody: { agentId: string; characterId: string };

  it("runs an agent in the world it is made for, on that world's process, whichever process is asked", async () => {
    const owner = await connect(second, 1);
    const made = await rest(first, "/api/agents", owner.token, { name: "Wanderer", world: 2 });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    wanderer = made.body;
    await bob.client.received(shows(wanderer.characterId), 15000);
    // A newcomer to world 1's spawn is shown everyone there: not the agent.
    const newcomer = await connect(second, 1);
    await newcomer.client.received((frame) => frame.event === "world:update");
    assert.ok(!newcomer.client.frames.some(shows(wanderer.characterId)), "world 1 does not show it");
    for (const server of [first, second]) {
      const listed = await rest(server, "/api/agents", owner.token);
      const row = listed.body.agents.find((agent: any) => agent.agentId === wanderer.agentId);
      assert.equal(row?.world, 2, `listed by port ${server.port}: ${JSON.stringify(listed.body)}`);
      assert.equal(row.online, true);
    }
    // Asked of world 1's process, answered by world 2's, where the agent runs.
    const goal = await rest(first, `/api/agents/${wanderer.agentId}/goal`, owner.token, { type: "idle" });
    assert.equal(goal.status, 200, JSON.stringify(goal.body));
    assert.equal(goal.body.goal.type, "idle");
    const home = await rest(second, "/api/agents", owner.token, { name: "Homebody" });
    assert.equal(home.status, 201, JSON.stringify(home.body));
    homebody = home.body;
    const elsewhere = await rest(first, "/api/agents", owner.token, { name: "Nowhere", world: 3 });
    assert.equal(elsewhere.status, 400);
    assert.match(JSON.stringify(elsewhere.body), /the worlds here are 1 to 2/);
    await Promise.all([owner.client.close(), newcomer.client.close()]);
  });

  it("opens a killed process's world on the other one, with its players' items and its ground", async () => {
    // Dave, relayed to world 1's process, drops his axe there; it is written with the tick that dropped it.
    const dave = await connect(second, 1);
    const axe = dave.sync.inventory.find((entry: any) => entry.itemId === "bronze_axe");
    dave.client.send("player:action", { action: "drop", inventorySlot: axe.slot }, "drop");
    const dropped = await dave.client.received(
      (frame) => frame.id === "drop" && frame.event === "player:sync",
    );
    assert.ok(!dropped.data.inventory.some((entry: any) => entry.itemId === "bronze_axe"));
    await dave.client.received(showsItem("bronze_axe"));

    await first.stop("SIGKILL");
    await Promise.all([alice.client.closed, bob.client.closed, dave.client.closed]);
    // World 2's agents stay listed while world 1's process, where the configured agents play, is gone.
    const listed = await rest(second, "/api/agents", bob.token);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed.body.unavailableWorlds, [1], JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.agents.map((agent: any) => [agent.agentId, agent.world]),
      [[wanderer.agentId, 2]],
    );
    // With no player or agent request coming to it, world 1 opens on the process left (read from Redis,
    // which opens nothing).
    await waitForAsync(
      async () => (await worldAddresses()).get(1)?.join() === address(second),
      "world 1 opened again on its own",
      30_000,
    );
    assert.match(second.output(), /world 1 runs nowhere \(its process is gone\): opening it here/);
    let back: Player | undefined;
    await waitForAsync(async () => {
      back = await connect(second, 1, dave.token).catch(() => undefined);
      return back;
    }, "world 1 again, on the process that is left");
    assert.deepEqual(
      (await worldAddresses()).get(1),
      [address(second)],
      "world 1 runs on the second process now",
    );
    assert.deepEqual(back!.sync.inventory, dropped.data.inventory, "Dave's items as he left them");
    await back!.client.received(showsItem("bronze_axe"));
    await back!.client.received(shows(homebody.characterId), 15000);
    const aliceBack = await connect(second, 2, alice.token);
    assert.deepEqual(aliceBack.sync.inventory, alice.sync.inventory, "Alice's items as she hopped with them");
    // World 2 shows no item of world 1's ground.
    const elsewhere = await connect(second, 2);
    await elsewhere.client.received((frame) => frame.event === "world:update");
    assert.ok(!elsewhere.client.frames.some(showsItem("bronze_axe")), "world 2's ground is its own");
  });
});
