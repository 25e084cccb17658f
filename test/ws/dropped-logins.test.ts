// A /ws connection that closes while its login or its hop is being answered: the player must not be
// left in the world, holding a seat nobody plays.
import assert from "node:assert/strict";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { sleep, waitForAsync } from "../support/players.js";
import { listWorlds, startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, refusedUpgrade, WsClient, type WsPlayer } from "../support/ws-client.js";

/** Players online in each world, as GET /api/v1/worlds (and the world picker) shows them. */
const online = async (server: TestServer) =>
  ((await listWorlds(server)) as any[]).map((world) => world.playersOnline);

/** Waits until no world counts a player: past RECONNECT_SECONDS (1 s here), a dropped seat is let go. */
const emptied = (server: TestServer, what: string) =>
  waitForAsync(async () => (await online(server)).every((count: number) => count === 0), what, 6000);

/**
 * A server (on PostgreSQL when TEST_DATABASE_URL is set) whose join looks its character up 300 ms late,
 * as a database under load would: long enough for a connection to close meanwhile.
 */
async function startServer(
  env: Record<string, string>,
): Promise<{ server: TestServer; done(): Promise<void> }> {
  const fresh = postgresUrl ? await freshDatabaseUrl(postgresUrl) : undefined;
  const server = await startTestServer(fresh ? { ...env, DATABASE_URL: fresh.url } : env);
  const characters = server.runtime.characters as any;
  const summary = characters.summary;
  characters.summary = async (...args: unknown[]) => {
    await sleep(300);
    return summary.apply(characters, args);
  };
  const done = async () => {
    await server.stop();
    await fresh?.drop();
  };
  return { server, done };
}

describe("a /ws connection cut while its login is answered (WORLDS=2, WORLD_CAPACITY=3)", function () {
  this.timeout(60000);
  let server: TestServer;
  let done: () => Promise<void>;
  const players: WsPlayer[] = [];

  beforeEach(async () => {
    ({ server, done } = await startServer({
      WORLDS: "2",
      WORLD_CAPACITY: "3",
      WORLD_TICK_MS: "100",
      RECONNECT_SECONDS: "1",
    }));
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await done?.();
  });

  it("lets the player leave the world, and the world take others, once the seat's time is up", async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      tokens.push(token);
      // The player's connection drops just as the server accepts it (a phone losing its signal).
      const client = await WsClient.connect(`${server.wsUrl}?world=1`, { header: token });
      client.socket.terminate();
      await client.closed;
    }
    // Taken in (their seats counted), then let go once their seats' time is up.
    await waitForAsync(async () => (await online(server))[0] === 3, "the three logins counted in world 1");
    await emptied(server, "the three players whose connections dropped let go of world 1");
    const newcomer = (await issueAnonymousToken(server.runtime.jwtSecret)).token;
    const refusal = await refusedUpgrade(`${server.wsUrl}?world=1`, { header: newcomer }).catch(
      () => undefined,
    );
    assert.deepEqual(
      { online: await online(server), refusedNewcomer: refusal && JSON.parse(refusal.body).error.code },
      { online: [0, 0], refusedNewcomer: undefined },
      "three players whose connections dropped are still in world 1, which turns the next login away as full",
    );
  });

  it("counts no seat for a player who came back after its connection dropped, and logged out", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const client = await WsClient.connect(`${server.wsUrl}?world=1`, { header: token });
    client.socket.terminate();
    await client.closed;
    await sleep(2000);
    // The player comes back (taking its character over) and logs out properly.
    const again = await connectPlayer(server, 1, token);
    await again.client.close();
    await emptied(server, "world 1 counting no seat once the player logged out");
  });

  it("does not leave a player hopping to world 2 there when its connection drops on the hop", async () => {
    const alice = await connectPlayer(server, 1);
    alice.client.send("player:hop", { world: 2 }, "hop");
    await alice.client.next("player:hop");
    alice.client.socket.terminate();
    await alice.client.closed;
    // Longer than world 2's join and its seat's time (1 s).
    await sleep(2000);
    assert.deepEqual(await online(server), [0, 0], "alice, gone, still plays in a world");
  });
});

describe("a /ws connection cut while its login is answered (WORLDS=1, WORLD_CAPACITY=1)", function () {
  this.timeout(60000);
  let server: TestServer;
  let done: () => Promise<void>;

  before(async () => {
    ({ server, done } = await startServer({
      WORLD_CAPACITY: "1",
      WORLD_TICK_MS: "100",
      RECONNECT_SECONDS: "1",
    }));
  });
  after(() => done?.());

  it("lets the player log in again", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const client = await WsClient.connect(server.wsUrl, { header: token });
    client.socket.terminate();
    await client.closed;
    await waitForAsync(async () => (await online(server))[0] === 1, "the login counted in the world");
    await emptied(server, "the dropped login letting go of the world's one seat");
    const refusal = await refusedUpgrade(server.wsUrl, { header: token }).catch(() => undefined);
    assert.equal(
      refusal && `${refusal.status} ${refusal.body}`,
      undefined,
      "the player cannot log in again: its own dropped login fills the world",
    );
  });
});
