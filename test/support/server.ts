import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { boot, type ColyseusTestServer } from "@colyseus/testing";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { stopServer } from "../../src/shutdown.js";

/** One port for every server test, so they run one after another; TEST_PORT moves it (parallel checkouts). */
export const TEST_PORT = Number(process.env.TEST_PORT ?? 2568);

export interface TestServer {
  colyseus: ColyseusTestServer;
  runtime: Runtime;
  baseUrl: string;
  wsUrl: string;
  stop(): Promise<void>;
}

/** Boots the real application (in-memory embedded database unless DATABASE_URL is given) on TEST_PORT. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-test-"));
  const config = loadConfig({ NODE_ENV: "test", PGLITE_STORAGE: "memory", DATA_DIR: dataDir, ...env });
  const runtime = await createRuntime(config, createLogger(process.env.TEST_LOG_LEVEL ?? "silent", false));
  const colyseus = await boot(createApp(runtime), TEST_PORT);
  return {
    colyseus,
    runtime,
    baseUrl: `http://127.0.0.1:${TEST_PORT}`,
    wsUrl: `ws://127.0.0.1:${TEST_PORT}/ws`,
    stop: async () => {
      await stopServer(colyseus.server, runtime);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
