// Two server processes holding a numbered world each (the first world 1, the second world 2), with a
// Redis of their own (a suite may empty it, or stop a process, without reaching any other suite) and a
// fresh PostgreSQL database. Registered as the calling suite's before and after hooks.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { freshDatabaseUrl, postgresUrl } from "./databases.js";
import { type ServerProcess, scaleOutEnv, startServerProcess } from "./processes.js";
import { accepting, hasRedisServer, startRedis, stopRedis } from "./redis-server.js";
import { WsClient } from "./ws-client.js";

/** Whether this machine can run a pair: a redis-server to start and a PostgreSQL to use. */
export const canRunWorldPair = hasRedisServer && Boolean(postgresUrl);

export interface WorldPair {
  first: ServerProcess;
  second: ServerProcess;
  redisUrl: string;
  /** Both processes. */
  processes(): ServerProcess[];
  /** A new anonymous identity's token. */
  token(): Promise<string>;
  /** Opens /ws on `server` for `world` with a bearer token; waits for nothing. */
  open(server: ServerProcess, world: number, token: string): Promise<WsClient>;
}

/** A pair on `ports`, with `env` added to each process's, on `database` of its Redis (0 unless given). */
export function worldPair(
  ports: { servers: readonly [number, number]; redis: number },
  env: Record<string, string>,
  database = 0,
): WorldPair {
  const secret = randomBytes(32).toString("hex");
  const pair = {} as WorldPair;
  const clients: WsClient[] = [];
  let redis: ChildProcess | undefined;
  let postgres: { url: string; drop(): Promise<void> } | undefined;
  before(async function () {
    this.timeout(120_000);
    redis = startRedis(ports.redis);
    await accepting(ports.redis);
    pair.redisUrl = `redis://127.0.0.1:${ports.redis}/${database}`;
    postgres = await freshDatabaseUrl(postgresUrl!);
    const shared = {
      redisUrl: pair.redisUrl,
      databaseUrl: postgres.url,
      secret,
      dataDir: `/tmp/tileworld-world-pair-${ports.redis}`,
    };
    const start = (port: number) => startServerProcess(port, { ...scaleOutEnv(port, shared), ...env });
    // One after the other: each opens the lowest world that runs nowhere.
    pair.first = await start(ports.servers[0]);
    pair.second = await start(ports.servers[1]);
  });
  after(async function () {
    this.timeout(60_000);
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    for (const server of [pair.first, pair.second]) server?.child.kill("SIGCONT");
    await Promise.all([pair.first, pair.second].map((server) => server?.stop("SIGKILL")));
    if (redis) await stopRedis(redis);
    await postgres?.drop().catch(() => {});
  });
  pair.processes = () => [pair.first, pair.second];
  pair.token = async () => (await issueAnonymousToken(new TextEncoder().encode(secret))).token;
  pair.open = async (server, world, token) => {
    const client = await WsClient.connect(`ws://127.0.0.1:${server.port}/ws?world=${world}`, {
      header: token,
    });
    clients.push(client);
    return client;
  };
  return pair;
}
