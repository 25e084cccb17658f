// `npm run agents`: the agents as a process of their own (see src/agents/framework/server.ts).
import "./quiet-env-files.js";
import { WebSocket } from "ws";

// Node 20 has no global WebSocket, and Colyseus's reconnection path needs one.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

import { startAgentFramework } from "./agents/framework/server.js";
import { loadConfig } from "./config.js";
import { createLogger } from "./logger.js";
import { exitOnSignals, logProcessFailures } from "./shutdown.js";
import { exitAfterFailedStart, StartupError } from "./startup-error.js";

async function main(): Promise<void> {
  const config = loadConfig();
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
