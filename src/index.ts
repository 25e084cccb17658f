import { WebSocket } from "ws";

// Node 20 has no global WebSocket, and Colyseus's reconnection path needs one.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

import { listen } from "@colyseus/tools";
import { createApp } from "./app.js";
import { loadConfig } from "./config.js";
import { putHelperThreadsBehindTheTick } from "./helper-threads.js";
import { createLogger } from "./logger.js";
import { createRuntime } from "./runtime.js";
import { exitOnSignals, logProcessFailures, stopServer } from "./shutdown.js";
import { StartupError } from "./startup-error.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, config.production);
  logProcessFailures(logger);
  const runtime = await createRuntime(config, logger);
  await putHelperThreadsBehindTheTick();
  const server = await listen(createApp(runtime), config.PORT);
  exitOnSignals(() => stopServer(server, runtime), logger);
  // Colyseus Cloud has @colyseus/tools listen on a Unix socket of its own choosing, not on PORT.
  const address = runtime.httpServer.address();
  const where = typeof address === "string" ? address : `http://localhost:${address?.port ?? config.PORT}`;
  logger.info(`listening on ${where} (${config.NODE_ENV})`);
}

main().catch((error: unknown) => {
  console.error(error instanceof StartupError ? error.message : error);
  process.exit(1);
});
