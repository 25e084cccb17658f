// The agent framework as a process of its own (`npm run agents`): its agents play on the game server
// at GAME_SERVER_URL as ordinary SDK clients, their rows in its own file (store.ts), and it serves the
// /api/agents endpoints, which the game server forwards here when AGENT_FRAMEWORK_URL names it.
import http from "node:http";
import path from "node:path";
import express from "express";
import { FileAgentStore, OWN_FENCE } from "../agents/file-store.js";
import { AgentManager } from "../agents/manager.js";
import { logPlanner, modelPlanners } from "../agents/planners/index.js";
import { type AgentRequest, answerAgentRequest, answerInWorlds } from "../agents/requests.js";
import { agentCallerOf, authenticateThrough } from "../api/agent-callers.js";
import { agentsRouter } from "../api/agents.js";
import { errorHandler, notFound } from "../api/errors.js";
import { callerThenBody } from "../api/request-body.js";
import { addressVoucher } from "../api/vouched-address.js";
import type { Config } from "../config/config.js";
import { StartupError } from "../config/startup-error.js";
import { createRateLimits } from "../limits/rate-limits.js";
import type { Logger } from "../telemetry/logger.js";
import { agentSettings } from "./agent-settings.js";
import { loadConfiguredGameData } from "./game-data.js";
import { securityHeaders } from "./security-headers.js";

export interface AgentFramework {
  agents: AgentManager;
  httpServer: http.Server;
  close(): Promise<void>;
}

export async function startAgentFramework(config: Config, logger: Logger): Promise<AgentFramework> {
  const { data } = await loadConfiguredGameData(config, logger);
  // The game server's own secret: the agents sign in to it with tokens signed by it. Without JWT_SECRET
  // the game server keeps a development secret in its database, which this process does not open.
  if (!config.JWT_SECRET)
    throw new StartupError(
      "npm run agents needs JWT_SECRET, set to the game server's own: its agents sign in to the game " +
        "server with tokens signed by it. Set the same JWT_SECRET for both processes.",
    );
  const jwtSecret = new TextEncoder().encode(config.JWT_SECRET);
  const storeFile = config.AGENT_STORE_FILE ?? path.join(config.dataDir, "agents.json");
  const models = modelPlanners(config);
  logPlanner(models, logger);
  const agents = new AgentManager({
    agents: new FileAgentStore(storeFile, config.GAME_SERVER_URL, jwtSecret),
    gameData: data,
    jwtSecret,
    logger,
    ...agentSettings(config),
    model: models?.create,
    outsideTheServer: true,
  });

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.TRUST_PROXY);
  // JSON only here, but the same headers as the game server's: a browser may be sent here directly.
  app.use(securityHeaders());
  app.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });
  const api = express.Router();
  // Clients may call this process directly: they are held to the REST limit (with REDIS_URL, in the
  // same counts as their calls to the game server). What the game server forwards it counted already.
  const limits = createRateLimits(config, logger);
  const voucher = addressVoucher(jwtSecret);
  api.use((req, res, next) => (voucher.of(req) !== undefined ? next() : limits.rest(req, res, next)));
  // Every world's agents run here, each joining its world on the game server.
  const worlds = Array.from({ length: config.WORLDS }, (_, index) => index + 1);
  const answerIn = (world: number, request: AgentRequest) =>
    answerAgentRequest(agents, world, OWN_FENCE, request);
  api.use(
    agentsRouter(
      { agents: (request) => answerInWorlds(request, async () => worlds, answerIn) },
      callerThenBody(
        authenticateThrough(config.GAME_SERVER_URL, config.AGENT_OWNER_ABSENCE_SECONDS, voucher, logger),
      ),
      config.WORLDS,
      agentCallerOf,
    ),
  );
  app.use("/api", api);
  app.use(notFound);
  app.use(errorHandler(logger));

  await Promise.all(worlds.map((world) => agents.host(world, OWN_FENCE)));
  const httpServer = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(config.AGENT_PORT, () => resolve());
  });
  logger.info(
    { store: storeFile, agents: agents.list().length },
    `agent process on port ${config.AGENT_PORT}, playing on ${config.GAME_SERVER_URL}`,
  );
  // Agents that cannot join yet (the game server is not up) try again, waiting longer each time.
  await agents.listening(config.GAME_SERVER_URL);
  return {
    agents,
    httpServer,
    close: async () => {
      await agents.close();
      await limits.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
