import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { boot, type ColyseusTestServer } from "@colyseus/testing";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { loadConfig } from "../../src/config/config.js";
import type { Runtime } from "../../src/ports/runtime.js";
import { createApp } from "../../src/server/app.js";
import { createRuntime } from "../../src/server/runtime.js";
import { stopServer } from "../../src/server/shutdown.js";
import { createLogger, type Logger } from "../../src/telemetry/logger.js";
import { freshDatabaseBehindProxy } from "./databases.js";
import { DEFAULT_TEST_PORT } from "./runner-ports.js";
import type { TcpProxy } from "./tcp.js";

/** One port for every server test, so they run one after another; TEST_PORT moves it (parallel checkouts). */
export const TEST_PORT = Number(process.env.TEST_PORT ?? DEFAULT_TEST_PORT);
/** The write path the servers the tests start use (WRITE_PATH, else the default): the suites run in both. */
export const TEST_WRITE_PATH_ENV: Record<string, string> = process.env.WRITE_PATH
  ? { WRITE_PATH: process.env.WRITE_PATH }
  : {};

export interface TestServer {
  colyseus: ColyseusTestServer;
  runtime: Runtime;
  baseUrl: string;
  wsUrl: string;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** The server's log (a test that reads what the server logged passes its own); TEST_LOG_LEVEL's otherwise. */
  logger?: Logger;
  /** Runs on the runtime before the server boots (and opens the world): a test's changes to the game data. */
  beforeBoot?: (runtime: Runtime) => void;
}

/** Boots the real application (in-memory embedded database unless DATABASE_URL is given) on TEST_PORT. */
/**
 * The server listening on TEST_PORT, if any. Every test server takes that port, so one still running when
 * another starts was left by a test that timed out before its `stop()`: it is stopped then, so that one
 * failure does not fail every later test of the run with EADDRINUSE.
 */
let listening: TestServer | undefined;

export async function startTestServer(
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  if (listening) {
    console.warn("stopping a test server an earlier test left running (it timed out before stopping it)");
    await listening.stop().catch(() => {});
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-test-"));
  const config = loadConfig({
    NODE_ENV: "test",
    PGLITE_STORAGE: "memory",
    DATA_DIR: dataDir,
    ...TEST_WRITE_PATH_ENV,
    ...env,
  });
  const logger = options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? "silent", "json");
  const runtime = await createRuntime(config, logger);
  options.beforeBoot?.(runtime);
  const colyseus = await boot(createApp(runtime), TEST_PORT);
  let stopping: Promise<void> | undefined;
  const server: TestServer = {
    colyseus,
    runtime,
    baseUrl: `http://127.0.0.1:${TEST_PORT}`,
    wsUrl: `ws://127.0.0.1:${TEST_PORT}/ws`,
    // Once: the test that left it running may still call it when it wakes.
    stop: () => {
      stopping ??= (async () => {
        await stopServer(colyseus.server, runtime);
        rmSync(dataDir, { recursive: true, force: true });
      })().finally(() => {
        if (listening === server) listening = undefined;
      });
      return stopping;
    },
  };
  listening = server;
  return server;
}

/** A test server on a fresh database behind a TCP proxy the test can cut (see freshDatabaseBehindProxy). */
export interface ServerBehindProxy {
  server: TestServer;
  proxy: TcpProxy;
  /** Stops the server, closes the proxy and drops the database. */
  stop(): Promise<void>;
}

/**
 * Starts a test server on a fresh database beside the one at `baseUrl`, reached through a TCP proxy, with
 * `env` added to its settings. The database's time limits are short: a test sees an outage in seconds.
 */
export async function startServerBehindProxy(
  baseUrl: string,
  env: Record<string, string>,
): Promise<ServerBehindProxy> {
  const { url, proxy, drop } = await freshDatabaseBehindProxy(baseUrl);
  const cleanUp = async () => {
    await proxy.close();
    await drop().catch(() => {});
  };
  let server: TestServer;
  try {
    server = await startTestServer({
      DATABASE_STATEMENT_TIMEOUT_MS: "1000",
      DATABASE_QUERY_TIMEOUT_MS: "2000",
      ...env,
      DATABASE_URL: url,
    });
  } catch (error) {
    await cleanUp();
    throw error;
  }
  return {
    server,
    proxy,
    stop: async () => {
      await server.stop();
      await cleanUp();
    },
  };
}

/** The worlds as GET /api/v1/worlds lists them, asked with a token of an identity of its own. */
export async function listWorlds(
  server: Pick<TestServer, "baseUrl" | "runtime">,
): Promise<{ id: number; playersOnline: number; capacity: number; full: boolean }[]> {
  const { token } = await issueAnonymousToken(server.runtime.jwtSecret, "anon:world-watcher");
  return (await getJson(server, "/api/v1/worlds", token)).worlds;
}

/** A GET answered 200 (asserted), as JSON; with a bearer `token` when given. */
export async function getJson(
  server: Pick<TestServer, "baseUrl">,
  path: string,
  token?: string,
): Promise<any> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}
