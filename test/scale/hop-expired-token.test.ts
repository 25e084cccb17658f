// a /ws player whose token expired while it played (the connection stays signed in for its life)
// hops to a world on the same process and to one on another process (WORLDS=3: worlds 1 and 3 on the
// first process, world 2 on the second). Redis database 14.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { SignJWT } from "jose";
import { ANONYMOUS_AUDIENCE, SERVER_ISSUER } from "../../src/auth/tokens.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { sleep } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, scaleOutEnv, startServerProcess } from "../support/processes.js";
import { WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
const [FIRST_PORT, SECOND_PORT] = PROCESS_PORTS.hopExpiredToken;
const REDIS_DB = 14;

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

scaleOut("a hop after the connection's token expired (WORLDS=3, two processes)", function () {
  this.timeout(90000);
  const secret = randomBytes(32).toString("hex");
  let first: ServerProcess;
  let second: ServerProcess;
  let database: { url: string; drop(): Promise<void> };
  let redis: Redis;
  const clients: WsClient[] = [];

  const redisUrl = `${redisBase}/${REDIS_DB}`;
  const env = (port: number) => ({
    ...scaleOutEnv(port, {
      redisUrl,
      databaseUrl: database.url,
      secret,
      dataDir: "/tmp/tileworld-expiry",
    }),
    WORLDS: "3",
  });

  before(async () => {
    redis = new Redis(redisUrl);
    await redis.flushdb();
    database = await freshDatabaseUrl(postgresUrl!);
    first = await startServerProcess(FIRST_PORT, env(FIRST_PORT));
    second = await startServerProcess(SECOND_PORT, env(SECOND_PORT));
    // World 3 runs nowhere yet: a login to it through the first process opens it there.
    const opener = await connectWith(await tokenExpiringIn(3600), 3);
    await opener.close();
    const listings = Object.values(await redis.hgetall("roomcaches")).map((json) => JSON.parse(json));
    const where = (id: number) =>
      listings.find((room) => room.name === "world" && room.metadata?.world === id);
    assert.equal(where(1)?.publicAddress, `127.0.0.1:${FIRST_PORT}`);
    assert.equal(where(2)?.publicAddress, `127.0.0.1:${SECOND_PORT}`);
    assert.equal(where(3)?.publicAddress, `127.0.0.1:${FIRST_PORT}`);
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await Promise.all([first, second].map((server) => server?.stop()));
    await redis?.flushdb();
    redis?.disconnect();
    await database?.drop();
  });

  /** An anonymous token as the server issues them, but running out `seconds` from now. */
  function tokenExpiringIn(seconds: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(randomUUID())
      .setIssuer(SERVER_ISSUER)
      .setAudience(ANONYMOUS_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
      .sign(new TextEncoder().encode(secret));
  }

  async function connectWith(token: string, world: number): Promise<WsClient> {
    const client = await WsClient.connect(`ws://127.0.0.1:${FIRST_PORT}/ws?world=${world}`, {
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
