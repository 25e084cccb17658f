// a /ws player whose token expired while it played (the connection stays signed in for its life)
// hops to a world on the same process and to one on another process (WORLDS=3: worlds 1 and 3 on the
// first process, world 2 on the second). Redis database 14.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { ANONYMOUS_AUDIENCE, SERVER_ISSUER } from "../../src/auth/tokens.js";
import { postgresUrl } from "../support/databases.js";
import { sleep } from "../support/players.js";
import { PROCESS_PORTS, twoScaledProcesses } from "../support/processes.js";
import { WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
const PORTS = PROCESS_PORTS.hopExpiredToken;
const REDIS_DB = 14;

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

scaleOut("a hop after the connection's token expired (WORLDS=3, two processes)", function () {
  this.timeout(90000);
  const pair = twoScaledProcesses(PORTS, REDIS_DB, { WORLDS: "3" });
  const clients: WsClient[] = [];
  before(async () => {
    // World 3 runs nowhere yet: a login to it through the first process opens it there.
    const opener = await connectWith(await tokenExpiringIn(3600), 3);
    await opener.close();
    const listings = Object.values(await pair.redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
    const where = (id: number) =>
      listings.find((room) => room.name === "world" && room.metadata?.world === id);
    assert.equal(where(1)?.publicAddress, `127.0.0.1:${PORTS[0]}`);
    assert.equal(where(2)?.publicAddress, `127.0.0.1:${PORTS[1]}`);
    assert.equal(where(3)?.publicAddress, `127.0.0.1:${PORTS[0]}`);
  });
  after(() => Promise.all(clients.map((client) => client.close().catch(() => {}))));

  /** An anonymous token as the server issues them, but running out `seconds` from now. */
  function tokenExpiringIn(seconds: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(randomUUID())
      .setIssuer(SERVER_ISSUER)
      .setAudience(ANONYMOUS_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
      .sign(new TextEncoder().encode(pair.secret));
  }

  async function connectWith(token: string, world: number): Promise<WsClient> {
    const client = await WsClient.connect(`ws://127.0.0.1:${PORTS[0]}/ws?world=${world}`, {
      header: token,
    });
    clients.push(client);
    assert.equal((await client.first()).event, "player:sync");
    return client;
  }

  /** Hops, and says what came after the hop's answer: the new world's player:sync, or the error and close. */
  async function hopOutcome(client: WsClient, world: number): Promise<string> {
    client.send("player:hop", { world }, "hop");
    const answer = await client.received((frame) => frame.event === "player:hop" && frame.id === "hop");
    const frames = client.frames;
    const next = await client.received((frame) => frames.indexOf(frame) > frames.indexOf(answer), 10000);
    if (next.event === "player:sync") return "player:sync";
    const closed = await client.closed;
    return `${next.event} ${next.data?.code} (${next.data?.message}), closed ${closed.code}`;
  }

  it("hops a player whose token has expired to a world on the same process", async () => {
    const client = await connectWith(await tokenExpiringIn(2), 1);
    await sleep(3500);
    assert.equal(await hopOutcome(client, 3), "player:sync");
  });

  it("hops a player whose token has expired to a world on another process, as it would on its own", async () => {
    const client = await connectWith(await tokenExpiringIn(2), 1);
    await sleep(3500);
    assert.equal(await hopOutcome(client, 2), "player:sync");
  });
});
