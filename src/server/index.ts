import "../config/quiet-env-files.js";
import { WebSocket } from "ws";

// Node 20 has no global WebSocket, and Colyseus's reconnection path needs one.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

import { listen } from "@colyseus/tools";
import { loadConfig } from "../config/config.js";
import { exitAfterFailedStart, StartupError } from "../config/startup-error.js";
import type { Runtime } from "../ports/runtime.js";
import { createLogger } from "../telemetry/logger.js";
import { putHelperThreadsBehindTheTick } from "../tuning/helper-threads.js";
import { createApp } from "./app.js";
import { createRuntime } from "./runtime.js";
import { exitOnSignals, logProcessFailures, stopServer } from "./shutdown.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, config.logFormat);
  logProcessFailures(logger);
  const runtime = await createRuntime(config, logger);
  await putHelperThreadsBehindTheTick();
  const server = await listenOrExplain(runtime, config.PORT);
  exitOnSignals(() => stopServer(server, runtime), logger);
  // Colyseus Cloud has @colyseus/tools listen on a Unix socket of its own choosing, not on PORT.
  const address = runtime.httpServer.address();
  const where = typeof address === "string" ? address : `http://localhost:${address?.port ?? config.PORT}`;
  logger.info(`listening on ${where} (${config.NODE_ENV})`);
}

/**
 * Colyseus's listen never settles when the port is taken: the error goes to the HTTP server, where it
 * would end the process as an uncaught exception. Taken here, it says what to do.
 */
async function listenOrExplain(runtime: Runtime, port: number) {
  let onError: ((error: NodeJS.ErrnoException) => void) | undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    onError = (error) =>
      reject(
        error.code === "EADDRINUSE"
          ? new StartupError(
              `Port ${port} is already in use: stop what listens there, or set PORT to another port.`,
            )
          : error,
      );
    runtime.httpServer.once("error", onError);
  });
  try {
    return await Promise.race([listen(createApp(runtime), port), failed]);
  } finally {
    if (onError) runtime.httpServer.off("error", onError);
  }
}

main().catch(exitAfterFailedStart);
