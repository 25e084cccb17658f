// a world that fills up while a /ws login (or hop) is being answered is told `world_full`
// (docs/protocol.md: "A world that filled up while the login was answered ... sends error world_full and
// closes with 4503"; player:hop "Refused with error ... world_full").
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { sleep, waitForAsync } from "../support/players.js";
import { listWorlds, startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, WsClient, type WsPlayer } from "../support/ws-client.js";

/**
 * Delays by `ms` the next query of the worlds' listings made by a join's onAuth (authorizeWorldJoin's
 * admittingWorld); `started` settles as it begins.
 */
function slowNextOnAuthWorldQuery(ms: number): { started: Promise<void> } {
  const driver = matchMaker.driver;
  const query = driver.query;
  let begin!: () => void;
  const started = new Promise<void>((resolve) => (begin = resolve));
  driver.query = async (...args: Parameters<typeof query>) => {
    if (!String(new Error().stack).includes("authorizeWorldJoin")) return query.apply(driver, args);
    driver.query = query;
    begin();
    await sleep(ms);
    return query.apply(driver, args);
  };
  return { started };
}

describe("a world filled while the login is answered (WORLDS=2, WORLD_CAPACITY=1)", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: WsPlayer[] = [];
  const clients: WsClient[] = [];
  const online = async () => ((await listWorlds(server)) as any[]).map((world) => world.playersOnline);

  before(async () => {
    server = await startTestServer({ WORLDS: "2", WORLD_CAPACITY: "1", WORLD_TICK_MS: "100" });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await waitForAsync(async () => (await online()).every((count) => count === 0), "worlds empty");
  });
  after(() => server?.stop());

  it("tells a /ws login world_full when the world filled between its upgrade and its join", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const slow = slowNextOnAuthWorldQuery(800);
    const login = WsClient.connect(`${server.wsUrl}?world=1`, { header: token });
    await slow.started;
    // Bob takes world 1's one seat while Alice's join reads the listings.
    players.push(await connectPlayer(server, 1));
    const alice = await login;
    clients.push(alice);
    const first = await alice.first();
    const closed = await alice.closed;
    assert.deepEqual(
      { event: first.event, code: first.data?.code, close: closed.code },
      { event: "error", code: "world_full", close: 4503 },
      `told: ${JSON.stringify(first.data)}`,
    );
    assert.deepEqual(await online(), [1, 0]);
  });

  it("tells a hop world_full when the world hopped to filled after the hop's answer", async () => {
    const alice = await connectPlayer(server, 1);
    players.push(alice);
    const slow = slowNextOnAuthWorldQuery(800);
    alice.client.send("player:hop", { world: 2 }, "hop");
    await alice.client.next("player:hop");
    await slow.started;
    players.push(await connectPlayer(server, 2));
    const error = await alice.client.next("error");
    const closed = await alice.client.closed;
    assert.deepEqual(
      { code: error.data.code, close: closed.code },
      { code: "world_full", close: 4503 },
      `told: ${JSON.stringify(error.data)}`,
    );
  });
});
