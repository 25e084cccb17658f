import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { Client } from "@colyseus/sdk";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { CLOSE_REPLACED } from "../../src/protocol/close-codes.js";
import { findWorld } from "../../src/rooms/world-listing.js";
import { joinAsNewPlayer, type SdkPlayer, sleep, waitForAsync } from "../support/players.js";
import { getJson, listWorlds, startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, refusedUpgrade, WsClient, type WsPlayer } from "../support/ws-client.js";

const ADMIN_CODE = "worlds-admin";
/** Where Oakwood's goblins (not aggressive, 5 hitpoints, hitting at most 1) wander. */
const GOBLINS = { x: 80, z: 25 };

/** Delays the matchmaker's next query of the worlds' listings by `ms`; `started` settles as it begins. */
function slowNextWorldQuery(ms: number): { started: Promise<void> } {
  const driver = matchMaker.driver;
  const query = driver.query;
  let begin!: () => void;
  const started = new Promise<void>((resolve) => (begin = resolve));
  driver.query = async (...args: Parameters<typeof query>) => {
    driver.query = query;
    begin();
    await sleep(ms);
    return query.apply(driver, args);
  };
  return { started };
}

const worldOf = async (server: TestServer, token: string) =>
  (await getJson(server, "/api/v1/world", token)).world as number;

describe("numbered worlds: choosing one (WORLDS=2, WORLD_CAPACITY=1)", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: WsPlayer[] = [];

  before(async () => {
    server = await startTestServer({ WORLDS: "2", WORLD_CAPACITY: "1", WORLD_TICK_MS: "100" });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
  });
  after(() => server?.stop());

  it("lists the worlds with their players and capacity, and puts each login in the least full one", async () => {
    assert.deepEqual(
      { worlds: await listWorlds(server) },
      {
        worlds: [
          { id: 1, playersOnline: 0, capacity: 1, full: false },
          { id: 2, playersOnline: 0, capacity: 1, full: false },
        ],
      },
    );
    players.push(await connectPlayer(server));
    assert.equal(await worldOf(server, players[0]!.token), 1, "two empty worlds: the first");
    players.push(await connectPlayer(server));
    assert.equal(await worldOf(server, players[1]!.token), 2, "world 1 holds one: the other");
    assert.deepEqual(
      { worlds: await listWorlds(server) },
      {
        worlds: [
          { id: 1, playersOnline: 1, capacity: 1, full: true },
          { id: 2, playersOnline: 1, capacity: 1, full: true },
        ],
      },
    );

    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const everyWorldFull = await refusedUpgrade(server.wsUrl, { header: token });
    assert.equal(everyWorldFull.status, 503);
    assert.equal(JSON.parse(everyWorldFull.body).error.code, "world_full");
    const named = await refusedUpgrade(`${server.wsUrl}?world=2`, { header: token });
    assert.equal(named.status, 503);
    assert.match(JSON.parse(named.body).error.message, /world 2 is full/);
  });

  it("refuses ?world= naming no world, with the worlds there are", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    for (const world of ["3", "0", "two", "1.5"]) {
      const refused = await refusedUpgrade(`${server.wsUrl}?world=${world}`, { header: token });
      assert.equal(refused.status, 400, `?world=${world}`);
      assert.deepEqual(JSON.parse(refused.body), {
        error: { code: "unknown_world", message: "no such world: the worlds here are 1 to 2" },
      });
    }
  });

  it("refuses a hop to a full world, and the player stays", async () => {
    const first = await connectPlayer(server, 1);
    const second = await connectPlayer(server, 2);
    players.push(first, second);
    first.client.send("player:hop", { world: 2 }, "hop");
    const refusal = await first.client.next("error");
    assert.equal(refusal.id, "hop");
    assert.equal(refusal.data.code, "world_full");
    assert.equal(await worldOf(server, first.token), 1);
  });
});

describe("numbered worlds: an SDK client joining a world's room by its id (WORLDS=2, WORLD_CAPACITY=1)", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: WsPlayer[] = [];

  before(async () => {
    server = await startTestServer({ WORLDS: "2", WORLD_CAPACITY: "1", WORLD_TICK_MS: "100" });
  });
  after(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await server?.stop();
  });

  it("is held to that world: refused when it is full, whatever its options name", async () => {
    const inWorld2 = await connectPlayer(server, 2);
    await inWorld2.client.close();
    players.push(await connectPlayer(server, 1));
    const rooms = await matchMaker.query({ name: "world" });
    const roomOf = (world: number) => rooms.find((room) => room.metadata?.world === world)!.roomId;
    assert.ok(roomOf(1) && roomOf(2), "both worlds are open");
    await waitForAsync(async () => (await listWorlds(server))[1]?.playersOnline === 0, "world 2 empty again");
    const sdk = new Client(server.baseUrl);
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    sdk.auth.token = token;
    await assert.rejects(sdk.joinById(roomOf(1)), /world 1 is full/);
    await assert.rejects(sdk.joinById(roomOf(1), { world: 2 }), /world 1 is full/);
    const joined = await sdk.joinById(roomOf(2));
    try {
      await waitForAsync(async () => (await worldOf(server, token)) === 2, "the SDK player in world 2");
    } finally {
      await joined.leave();
    }
  });

  it("takes it into that world's last seat while another world is as empty", async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await waitForAsync(async () => {
      const worlds = await listWorlds(server);
      return worlds.every((world: { playersOnline: number }) => world.playersOnline === 0);
    }, "both worlds empty");
    const world2 = (await matchMaker.query({ name: "world" })).find((room) => room.metadata?.world === 2)!;
    const sdk = new Client(server.baseUrl);
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    sdk.auth.token = token;
    // The login would go to world 1 (the lowest of the least full): the room joined is world 2's.
    const joined = await sdk.joinById(world2.roomId);
    try {
      await waitForAsync(async () => (await worldOf(server, token)) === 2, "the SDK player in world 2");
    } finally {
      await joined.leave();
    }
  });
});

describe("numbered worlds: full, and a player coming back (WORLDS=2, WORLD_CAPACITY=1)", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: WsPlayer[] = [];
  const online = async () => ((await listWorlds(server)) as any[]).map((world) => world.playersOnline);
  /** The player's connection drops (no close frame): its world keeps its seat for RECONNECT_SECONDS. */
  const drop = async (player: WsPlayer) => {
    player.client.socket.terminate();
    await player.client.closed;
    await sleep(300);
  };

  before(async () => {
    server = await startTestServer({ WORLDS: "2", WORLD_CAPACITY: "1", WORLD_TICK_MS: "100" });
  });
  after(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await server?.stop();
  });

  it("takes a player whose connection dropped back into its kept seat, and nobody else", async () => {
    const alice = await connectPlayer(server, 1);
    players.push(await connectPlayer(server, 2));
    await drop(alice);
    assert.deepEqual(await online(), [1, 1], "alice's seat kept");

    const back = await connectPlayer(server, undefined, alice.token);
    assert.equal(back.id, alice.id, "every world full: alice back in hers");
    await drop(back);
    const named = await connectPlayer(server, 1, alice.token);
    assert.equal(named.id, alice.id, "alice back, naming her world");
    players.push(named);

    const elsewhere = await refusedUpgrade(`${server.wsUrl}?world=2`, { header: alice.token });
    assert.match(JSON.parse(elsewhere.body).error.message, /world 2 is full/, "her seat is in world 1");
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const newcomer = await refusedUpgrade(server.wsUrl, { header: token });
    assert.equal(JSON.parse(newcomer.body).error.code, "world_full");
    // The listing counts the replaced seat until Colyseus has let it go, which a busy process does late.
    await waitForAsync(
      async () => JSON.stringify(await online()) === "[1,1]",
      "one player a world once the replaced seat is let go",
      10_000,
    );
  });

  it("takes an SDK player back into its kept seat, by its world or by its room's id", async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    const bob = await connectPlayer(server, 1);
    const other = await connectPlayer(server, 2);
    await drop(bob);
    const joined = await joinAsNewPlayer(server, bob.token, { world: 1 });
    assert.equal(joined.id, bob.id);
    // The SDK client's connection drops too; it comes back by the room's id while world 2 is empty.
    joined.room.connection.close();
    await other.client.close();
    await sleep(300);
    assert.deepEqual(await online(), [1, 0], "bob's seat kept");
    const sdk = new Client(server.baseUrl);
    sdk.auth.token = bob.token;
    const rejoined = await sdk.joinById(joined.room.roomId);
    try {
      await waitForAsync(async () => (await worldOf(server, bob.token)) === 1, "bob in world 1");
      assert.deepEqual(await online(), [1, 0]);
    } finally {
      await rejoined.leave();
    }
  });

  it("holds its capacity against logins arriving at the same moment, /ws and SDK alike", async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await waitForAsync(async () => (await online()).every((count) => count === 0), "both worlds empty");
    const newTokens = () =>
      Promise.all(
        Array.from({ length: 5 }, async () => (await issueAnonymousToken(server.runtime.jwtSecret)).token),
      );
    const tokens = await newTokens();
    // Each join looks its character up 300 ms late, as a loaded database would: all five have been
    // checked against the worlds' listings by the time the first takes its seat.
    const characters = server.runtime.characters as any;
    const summary = characters.summary;
    characters.summary = async (...args: unknown[]) => {
      await sleep(300);
      return summary.apply(characters, args);
    };
    const wsLogin = async (token: string) => {
      const client = await WsClient.connect(`${server.wsUrl}?world=1`, { header: token }).catch(
        () => undefined,
      );
      if (!client) return "refused on the upgrade";
      const first = await client.first();
      if (first.event !== "player:sync") return first.data.code as string;
      players.push({ client, sync: first.data, id: first.data.id, token });
      return "played";
    };
    const wsOutcomes = await Promise.all(tokens.map(wsLogin));
    assert.deepEqual(
      wsOutcomes.sort(),
      ["played", "world_full", "world_full", "world_full", "world_full"],
      "one /ws player in world 1's one seat; the others told it is full",
    );

    const sdkOutcomes = await Promise.allSettled(
      (await newTokens()).map((token) => joinAsNewPlayer(server, token, { world: 2 })),
    );
    characters.summary = summary;
    const joined = sdkOutcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    try {
      assert.equal(joined.length, 1, "one SDK player in world 2's one seat");
      for (const outcome of sdkOutcomes)
        if (outcome.status === "rejected") assert.match(String(outcome.reason), /world 2 is full/);
      assert.deepEqual(await online(), [1, 1]);
    } finally {
      await Promise.all(joined.map((player) => player.room.leave()));
    }
  });
});
describe("numbered worlds: apart, and hopping between them (WORLDS=2)", function () {
  this.timeout(40000);
  let server: TestServer;
  const players: WsPlayer[] = [];
  const sdkPlayers: SdkPlayer[] = [];

  before(async () => {
    server = await startTestServer({ WORLDS: "2", WORLD_TICK_MS: "100", ADMIN_CODE });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await Promise.all(sdkPlayers.splice(0).map((player) => player.room.leave().catch(() => {})));
  });
  after(() => server?.stop());

  const join = async (world?: number, token?: string) => {
    const player = await connectPlayer(server, world, token);
    players.push(player);
    return player;
  };
  const sees = (player: WsPlayer, id: string) =>
    player.client.frames.some(
      (frame) => frame.event === "world:update" && frame.data.added?.some((entity: any) => entity.id === id),
    );

  it("keeps the players of two worlds from seeing, hearing or trading with each other", async () => {
    const alice = await join(1);
    const bob = await join(2);
    const carol = await join(1);
    // Carol came after Bob, to the same spawn: once Alice sees her, she would have seen Bob too.
    await alice.client.received(
      (frame) =>
        frame.event === "world:update" && frame.data.added?.some((entity: any) => entity.id === carol.id),
    );
    assert.ok(!sees(alice, bob.id), "world 1 does not show world 2's player");
    assert.ok(!sees(bob, alice.id) && !sees(bob, carol.id), "nor world 2 world 1's");

    alice.client.send("player:chat", { message: "hello world one" });
    await carol.client.received(
      (frame) => frame.event === "chat:message" && frame.data.message === "hello world one",
    );
    // Bob's own line comes back to him through world 2: Alice's would have come by now, were it sent there.
    bob.client.send("player:chat", { message: "hello world two" });
    await bob.client.received(
      (frame) => frame.event === "chat:message" && frame.data.message === "hello world two",
    );
    const heard = (player: WsPlayer, message: string) =>
      player.client.frames.some((frame) => frame.event === "chat:message" && frame.data.message === message);
    assert.ok(!heard(bob, "hello world one"), "world 2 does not hear world 1");
    assert.ok(!heard(alice, "hello world two") && !heard(carol, "hello world two"), "nor world 1 world 2");

    alice.client.send("tradeRequest", { targetPlayerId: bob.id }, "trade");
    const refused = await alice.client.next("tradeError");
    assert.equal(refused.data.reason, "not_in_same_world");
    assert.equal(refused.id, "trade");
    alice.client.send("tradeRequest", { targetPlayerId: "nobody-at-all" });
    assert.equal((await alice.client.next("tradeError")).data.reason, "player_offline");

    assert.equal(await worldOf(server, alice.token), 1);
    assert.equal(await worldOf(server, bob.token), 2);
  });

  it("moves a player to another world on player:hop, with its items, as a logout and login would", async () => {
    const alice = await join(1);
    const bob = await join(2);
    alice.client.send("player:hop", { world: 2 }, "hop");
    const answer = await alice.client.next("player:hop");
    assert.deepEqual(answer, { event: "player:hop", data: { from: 1, world: 2 }, id: "hop" });
    const frames = alice.client.frames;
    const arrived = await alice.client.received(
      (frame) => frame.event === "player:sync" && frames.indexOf(frame) > frames.indexOf(answer),
    );
    assert.equal(arrived.data.id, alice.id);
    assert.deepEqual(arrived.data.inventory, alice.sync.inventory, "the same items");
    assert.deepEqual(arrived.data.equipment, alice.sync.equipment);
    assert.equal(arrived.data.coins, alice.sync.coins);
    // Now in world 2: Bob sees Alice, and they may trade.
    await bob.client.received(
      (frame) =>
        frame.event === "world:update" && frame.data.added?.some((entity: any) => entity.id === alice.id),
    );
    assert.equal(await worldOf(server, alice.token), 2);
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    await bob.client.next("tradeIncoming");
    const worlds = await listWorlds(server);
    assert.deepEqual(
      worlds.map((world: any) => world.playersOnline),
      [0, 2],
    );
  });

  it("answers a second hop sent before the first is answered busy: the player lands where the answer says", async () => {
    const alice = await join(1);
    // A double click: both requests reach world 1 before either is answered.
    alice.client.send("player:hop", { world: 2 }, "first");
    alice.client.send("player:hop", { world: 2 }, "second");
    const answers = [
      await alice.client.received((frame) => frame.id === "first"),
      await alice.client.received((frame) => frame.id === "second"),
    ];
    assert.deepEqual(
      answers.map(({ event, data }) => [event, data.code ?? data.world]),
      [
        ["player:hop", 2],
        ["error", "busy"],
      ],
    );
    await alice.client.received((frame) => frame.event === "player:sync" && frame.data.id === alice.id);
    assert.equal(await worldOf(server, alice.token), 2);
  });

  it("refuses a hop to no world, to its own world, and during a trade, with a clear error", async () => {
    const alice = await join(1);
    const carol = await join(1);
    const refusal = async (data: unknown) => {
      alice.client.send("player:hop", data);
      return (await alice.client.next("error")).data;
    };
    assert.equal((await refusal({ world: 3 })).code, "unknown_world");
    assert.equal((await refusal({ world: 1 })).code, "same_world");
    assert.equal((await refusal({})).code, "bad_request");

    alice.client.send("tradeRequest", { targetPlayerId: carol.id });
    const incoming = await carol.client.next("tradeIncoming");
    carol.client.send("tradeRequestRespond", { tradeId: incoming.data.tradeId, accept: true });
    await alice.client.next("tradeStarted");
    assert.deepEqual(await refusal({ world: 2 }), {
      code: "trading",
      message: "finish or cancel your trade before changing worlds",
      event: "player:hop",
    });
    assert.equal(await worldOf(server, alice.token), 1);
  });

  it("refuses a hop when a trade begins while the worlds are looked up", async () => {
    const alice = await join(1);
    const carol = await join(1);
    alice.client.send("tradeRequest", { targetPlayerId: carol.id });
    const incoming = await carol.client.next("tradeIncoming");
    // The hop's look-up of the worlds is slowed, as a loaded Redis would: Carol accepts meanwhile.
    const lookup = slowNextWorldQuery(1000);
    alice.client.send("player:hop", { world: 2 }, "hop");
    await lookup.started;
    carol.client.send("tradeRequestRespond", { tradeId: incoming.data.tradeId, accept: true });
    await alice.client.next("tradeStarted");
    const answer = await alice.client.received((frame) => frame.id === "hop");
    assert.deepEqual(answer.data, {
      code: "trading",
      message: "finish or cancel your trade before changing worlds",
      event: "player:hop",
    });
    assert.equal(await worldOf(server, alice.token), 1);
    assert.ok(!carol.client.frames.some((frame) => frame.event === "tradeCancelled"), "the trade goes on");
  });

  it("keeps a player in a fight where it is: no hop, and no login in another world meanwhile", async () => {
    const alice = await join(1);
    alice.client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await alice.client.next("chat:message");
    alice.client.send("player:chat", { message: `/tp ${GOBLINS.x} ${GOBLINS.z + 2}` }, "tp");
    await alice.client.received((frame) => frame.id === "tp" && frame.event === "player:sync");
    const goblin = (
      await alice.client.received(
        (frame) =>
          frame.event === "world:update" &&
          frame.data.added?.some(
            (entity: any) => entity.type === "goblin" && entity.health === entity.maxHealth,
          ),
      )
    ).data.added.find((entity: any) => entity.type === "goblin" && entity.health === entity.maxHealth);
    alice.client.send("player:action", { action: "attack", targetId: goblin.id });
    await alice.client.received(
      (frame) => frame.event === "combat:hit" && frame.data.attackerId === goblin.id,
      10000,
    );

    alice.client.send("player:hop", { world: 2 }, "hop");
    const refusal = await alice.client.received((frame) => frame.id === "hop");
    assert.deepEqual(refusal.data, {
      code: "in_combat",
      message: "you cannot change worlds during a fight",
      event: "player:hop",
    });
    const elsewhere = await WsClient.connect(`${server.wsUrl}?world=2`, { header: alice.token });
    const refused = await elsewhere.first();
    assert.equal(refused.event, "error");
    assert.equal(refused.data.code, "join_failed");
    assert.match(refused.data.message, /in a fight in world 1/);
    await elsewhere.closed;
    assert.equal(await worldOf(server, alice.token), 1, "still playing in world 1");
    // Its next login elsewhere asks world 1 again.
    assert.equal(await server.runtime.characters.worldOf(alice.id), 1);

    // Logged out mid-fight, its character fights on in world 1: a login naming no world goes back there,
    // though world 2 is emptier.
    await alice.client.close();
    const back = await join(undefined, alice.token);
    assert.equal(back.id, alice.id);
    assert.equal(await worldOf(server, alice.token), 1);
    // So does a second login while the first plays: it takes the player over where it is.
    const again = await join(undefined, alice.token);
    assert.equal((await back.client.closed).code, CLOSE_REPLACED);
    assert.equal(again.id, alice.id);
    assert.equal(await worldOf(server, alice.token), 1);
  });

  it("plays a character in one world at a time: a login in another world takes it over", async () => {
    const first = await join(1);
    const second = await join(2, first.token);
    assert.equal(second.id, first.id);
    assert.equal((await first.client.closed).code, CLOSE_REPLACED);
    assert.deepEqual(second.sync.inventory, first.sync.inventory);
    assert.equal(await worldOf(server, first.token), 2);
    const worlds = await listWorlds(server);
    assert.deepEqual(
      worlds.map((world: any) => world.playersOnline),
      [0, 1],
    );
  });

  it("takes a character over from a world of the version before, whose release names no trades", async () => {
    const first = await join(1);
    const room = matchMaker.getLocalRoomById((await findWorld(1))!.roomId) as unknown as {
      releaseCharacter(characterId: string): Promise<unknown>;
    };
    const release = room.releaseCharacter;
    // As a process of the version before answers during a rolling deploy.
    room.releaseCharacter = async (characterId) => {
      const answer = await release.call(room, characterId);
      return typeof answer === "object" ? "released" : answer;
    };
    try {
      const second = await join(2, first.token);
      assert.equal(second.id, first.id);
    } finally {
      room.releaseCharacter = release;
    }
  });

  it("tells a player whose login in another world ended its trade, on that login", async () => {
    const alice = await join(1);
    const bob = await join(1);
    const incoming = bob.client.next("tradeIncoming");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const tradeId = (await incoming).data.tradeId;
    const started = [alice, bob].map((player) => player.client.next("tradeStarted"));
    bob.client.send("tradeRequestRespond", { tradeId, accept: true });
    await Promise.all(started);
    const partnerTold = bob.client.next("tradeCancelled");
    const again = await join(2, alice.token);
    assert.deepEqual((await partnerTold).data, { tradeId, reason: "partner_disconnected" });
    const told = await again.client.received(
      (frame) => frame.event === "tradeCancelled" && frame.data.tradeId === tradeId,
    );
    assert.equal(told.data.reason, "disconnected");
  });

  it("tells a player whose login in another world ended its requests, each on that login", async () => {
    const alice = await join(1);
    const bob = await join(1);
    const carol = await join(1);
    const sent = alice.client.next("tradeRequestSent");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const asked = alice.client.next("tradeIncoming");
    carol.client.send("tradeRequest", { targetPlayerId: alice.id });
    const ids = [(await sent).data.tradeId, (await asked).data.tradeId];
    const again = await join(2, alice.token);
    const ended = ids.map((id) =>
      again.client.received((frame) => frame.event === "tradeCancelled" && frame.data.tradeId === id),
    );
    assert.deepEqual(
      (await Promise.all(ended)).map((frame) => frame.data.reason),
      ["disconnected", "disconnected"],
    );
  });

  it("joins an SDK client to the world its option names, and refuses one naming no world", async () => {
    const player = await joinAsNewPlayer(server, undefined, { world: 2 });
    sdkPlayers.push(player);
    await waitForAsync(async () => (await worldOf(server, player.token)) === 2, "the SDK player in world 2");
    await assert.rejects(joinAsNewPlayer(server, undefined, { world: 3 }), /no such world/);
    // A hop is leaving and joining again with the option.
    await player.room.leave();
    sdkPlayers.length = 0;
    const again = await joinAsNewPlayer(server, player.token, { world: 1 });
    sdkPlayers.push(again);
    assert.equal(again.id, player.id);
    assert.equal(await worldOf(server, player.token), 1);
  });
});
