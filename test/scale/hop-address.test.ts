// a /ws player's client address across the hops between processes (WORLDS=2, one world on each
// process, TRUST_PROXY=1 as behind a load balancer). Redis database 12.
import assert from "node:assert/strict";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { postgresUrl } from "../support/databases.js";
import { PROCESS_PORTS, type ServerProcess, twoScaledProcesses } from "../support/processes.js";
import { WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
const PORTS = PROCESS_PORTS.hopAddress;
const REDIS_DB = 12;
/** Wrong /admin codes one address may try a minute. */
const AUTH_LIMIT = 3;

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

scaleOut("a /ws client's address over a relay and a hop (TRUST_PROXY=1, WORLDS=2)", function () {
  this.timeout(90000);
  const pair = twoScaledProcesses(PORTS, REDIS_DB, {
    WORLDS: "2",
    TRUST_PROXY: "1",
    ADMIN_CODE: "the-right-admin-code",
    RATE_LIMIT_AUTH_PER_MIN: String(AUTH_LIMIT),
  });
  const clients: WsClient[] = [];
  after(() => Promise.all(clients.map((client) => client.close().catch(() => {}))));

  /** A player from `address` (as the load balancer in front says), in world `world` through `server`. */
  async function connect(server: ServerProcess, world: number, address: string) {
    const { token } = await issueAnonymousToken(new TextEncoder().encode(pair.secret));
    const client = await WsClient.connect(
      `ws://127.0.0.1:${server.port}/ws?world=${world}`,
      { header: token },
      { "x-forwarded-for": address },
    );
    clients.push(client);
    const sync = await client.first();
    assert.equal(sync.event, "player:sync", JSON.stringify(sync));
    return client;
  }

  async function hop(client: WsClient, world: number): Promise<void> {
    client.send("player:hop", { world }, "hop");
    const answer = await client.received((frame) => frame.event === "player:hop" && frame.id === "hop");
    assert.equal(answer.data.world, world);
    // The sync of the new world, after the hop's answer.
    const frames = client.frames;
    await client.received(
      (frame) => frame.event === "player:sync" && frames.indexOf(frame) > frames.indexOf(answer),
      10000,
    );
  }

  /** The answer to one `/admin <wrong code>`: its error code. */
  async function wrongAdminCode(client: WsClient, id: string): Promise<string> {
    client.send("player:chat", { message: "/admin not-the-code" }, id);
    const answer = await client.received((frame) => frame.id === id && frame.event === "error", 10000);
    return answer.data.code;
  }

  it("keeps apart the /admin attempts of two players from different addresses, relayed without a hop", async () => {
    // World 2 runs on the second process: both are relayed there by the first.
    const guesser = await connect(pair.first, 2, "203.0.113.10");
    const other = await connect(pair.first, 2, "198.51.100.10");
    for (let i = 0; i < AUTH_LIMIT; i++) assert.equal(await wrongAdminCode(guesser, `g${i}`), "forbidden");
    assert.equal(await wrongAdminCode(guesser, "g-over"), "rate_limited");
    assert.equal(await wrongAdminCode(other, "o0"), "forbidden", "the other address is not limited");
  });

  it("keeps apart the /admin attempts of two players from different addresses after a hop to the other process", async () => {
    // Both log in to world 1, on the first process, then hop to world 2, on the second.
    const guesser = await connect(pair.first, 1, "203.0.113.20");
    const other = await connect(pair.first, 1, "198.51.100.20");
    await hop(guesser, 2);
    await hop(other, 2);
    for (let i = 0; i < AUTH_LIMIT; i++) assert.equal(await wrongAdminCode(guesser, `g${i}`), "forbidden");
    assert.equal(await wrongAdminCode(guesser, "g-over"), "rate_limited");
    // Were the second process to see the first one's address, the other player would share the guesser's count.
    const counted = (await pair.redis.keys("tileworld:rate-limit:auth:*")).sort();
    assert.equal(
      await wrongAdminCode(other, "o0"),
      "forbidden",
      `the other address is limited by the guesser's attempts; auth counters: ${counted.join(", ")}`,
    );
  });
});
