// `npm run agents`: the agents as a process of their own (see src/server/agents-process.ts).
import "../config/quiet-env-files.js";
import { WebSocket } from "ws";

// Node 20 has no global WebSocket, and Colyseus's reconnection path needs one.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

import { loadConfig } from "../config/config.js";
import { exitAfterFailedStart, StartupError } from "../config/startup-error.js";
import { createLogger } from "../telemetry/logger.js";
import { startAgentFramework } from "./agents-process.js";
import { exitOnSignals, logProcessFailures } from "./shutdown.js";

async function main(): Promise<void> {
  const config = loadConfig(process.env, "agents");
  const logger = createLogger(config.LOG_LEVEL, config.logFormat);
  logProcessFailures(logger);
  const framework = await startAgentFramework(config, logger).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE")
      throw new StartupError(
        `Port ${config.AGENT_PORT} is already in use: stop what listens there, or set AGENT_PORT to another port.`,
      );
    throw error;
  });
  exitOnSignals(() => framework.close(), logger);
}

main().catch(exitAfterFailedStart);
