import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { nodeFlagsOf } from "../../src/tuning/node-flags.js";
import { freshDatabaseUrl, postgresUrl } from "./databases.js";
import { processPorts } from "./runner-ports.js";
import { TEST_PORT, TEST_WRITE_PATH_ENV } from "./server.js";

/** Ports of the server processes the tests start, from this test process's TEST_PORT (see processPorts). */
export const PROCESS_PORTS = processPorts(TEST_PORT);

/**
 * The variables of a scaled-out server process on `port`: the shared Redis, database and secret, a
 * 100 ms tick, its own data folder and a REST limit no test reaches.
 */
export function scaleOutEnv(
  port: number,
  shared: { redisUrl: string; databaseUrl: string; secret: string; dataDir: string },
): Record<string, string> {
  return {
    REDIS_URL: shared.redisUrl,
    DATABASE_URL: shared.databaseUrl,
    JWT_SECRET: shared.secret,
    PUBLIC_ADDRESS: `127.0.0.1:${port}`,
    WORLD_TICK_MS: "100",
    DATA_DIR: `${shared.dataDir}-${port}`,
    RATE_LIMIT_REST_PER_MIN: "10000",
  };
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  output(): string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The agent process (`npm run agents`) on `port`, playing on the game server at `gameServerUrl` with its
 * `secret`, its agents' file in `dataDir`; `env` adds to (or overrides) these.
 */
export function startAgentProcess(
  port: number,
  gameServerUrl: string,
  secret: string,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  return startServerProcess(
    port,
    {
      NODE_ENV: "test",
      AGENT_PORT: String(port),
      GAME_SERVER_URL: gameServerUrl,
      JWT_SECRET: secret,
      WORLD_TICK_MS: "50",
      DATA_DIR: dataDir,
      ...env,
    },
    undefined,
    "src/server/agent-framework.ts",
  );
}

/**
 * Server processes still running. A test that timed out leaves its servers up, holding their ports: the
 * test process kills them as it exits, so that the files run again alone after it find the ports free.
 */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts `npm start`'s entry point as `npm start` runs it, as a separate process; waits until /health answers. */
export async function startServerProcess(
  port: number,
  env: Record<string, string>,
  startWithinMs = 60000,
  /** `npm run agents`'s entry point instead: the agent process. */
  entry: "src/server/index.ts" | "src/server/agent-framework.ts" = "src/server/index.ts",
): Promise<ServerProcess> {
  const flags = entry === "src/server/index.ts" ? nodeFlagsOf("start") : [];
  const child = spawn(process.execPath, [...flags, "--import", "tsx", entry], {
    // JSON lines, which tests read, unless a test asks for the development default (LOG_FORMAT: "").
    env: { PATH: process.env.PATH, PORT: String(port), LOG_FORMAT: "json", ...TEST_WRITE_PATH_ENV, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startWithinMs;
  while (Date.now() < deadline) {
    const healthy = await fetch(`${baseUrl}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) {
      return {
        child,
        port,
        baseUrl,
        output: () => output,
        exited,
        stop: (signal = "SIGTERM") => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      };
    }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`server on port ${port} did not become healthy:\n${output}`);
}

/** Runs `npm start`'s entry point (or `entry`) until it exits: its exit code and what it wrote to stderr. */
export async function runToExit(
  env: Record<string, string>,
  entry: readonly string[] = ["src/server/index.ts"],
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", ...entry], {
    env: { PATH: process.env.PATH, LOG_FORMAT: "json", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, stderr };
}

/** Two scaled-out processes of one suite, with what they share (see twoScaledProcesses). */
export interface ScaledPair {
  first: ServerProcess;
  second: ServerProcess;
  /** Their Redis database. */
  redis: Redis;
  /** Their JWT_SECRET. */
  secret: string;
}

/**
 * Mocha hooks for a suite on two scaled-out processes on `ports`, started one after the other on a
 * fresh database and Redis database `redisDb` (emptied before and after); `env` adds to each process's.
 * Its fields are set once the suite's `before` has run.
 */
export function twoScaledProcesses(
  ports: readonly number[],
  redisDb: number,
  env: Record<string, string>,
): ScaledPair {
  const pair = { secret: randomBytes(32).toString("hex") } as ScaledPair;
  const redisUrl = `${process.env.TEST_REDIS_URL}/${redisDb}`;
  let database: { url: string; drop(): Promise<void> } | undefined;
  before(async () => {
    pair.redis = new Redis(redisUrl);
    await pair.redis.flushdb();
    database = await freshDatabaseUrl(postgresUrl!);
    const shared = {
      redisUrl,
      databaseUrl: database.url,
      secret: pair.secret,
      dataDir: `/tmp/tileworld-${redisDb}`,
    };
    const start = (port: number) => startServerProcess(port, { ...scaleOutEnv(port, shared), ...env });
    pair.first = await start(ports[0]!);
    pair.second = await start(ports[1]!);
  });
  after(async () => {
    await Promise.all([pair.first, pair.second].map((server) => server?.stop()));
    await pair.redis?.flushdb();
    pair.redis?.disconnect();
    await database?.drop();
  });
  return pair;
}
