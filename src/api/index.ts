// Mounts the REST API on the Express app that Colyseus's transport created.
import express from "express";
import { skillUnlocksRouter } from "../manifests/routes.js";
import type { LiveWorld } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";
import { accountRouter } from "./account.js";
import { agentProcessRouter } from "./agent-process.js";
import { agentsRouter } from "./agents.js";
import { forwardAgentRequests } from "./agents-forward.js";
import { anonymousAuthRouter } from "./auth.js";
import { authenticate } from "./authenticate.js";
import { charactersRouter } from "./characters.js";
import { installCorsPolicy } from "./cors.js";
import { envScriptRouter } from "./env-js.js";
import { errorHandler, notFound } from "./errors.js";
import { playerRouter } from "./player.js";
import { callerThenBody } from "./request-body.js";
import { addressVoucher, vouchedClientAddress } from "./vouched-address.js";
import { worldRouter } from "./world.js";

/**
 * /env.js (uncounted), then everything under /api behind the REST limit, then the JSON 404 of whatever
 * no route answered and the one error handler: mounted after every other route.
 */
export function mountApi(app: express.Application, runtime: Runtime, liveWorld: LiveWorld): void {
  installCorsPolicy(runtime.config);
  app.use(envScriptRouter(runtime.config));

  // A body is read once a route has taken the request and its caller is known: a path no route answers is
  // 404 and a caller without a good token 401, whatever the request carries.
  const authenticated = callerThenBody(authenticate(runtime));
  const api = express.Router();
  const voucher = addressVoucher(runtime.jwtSecret);
  // The interface's REST limit covers all of /api, the public skill-unlock map included.
  api.use(vouchedClientAddress(voucher), runtime.rateLimits.rest);
  api.use(
    "/data/skill-unlocks",
    skillUnlocksRouter(() => runtime.gameData),
  );
  // The agents run in their own process when one is configured: their endpoints are answered there, for
  // callers this server has authenticated.
  const { AGENT_FRAMEWORK_URL } = runtime.config;
  if (AGENT_FRAMEWORK_URL)
    api.use("/agents", authenticated, forwardAgentRequests(AGENT_FRAMEWORK_URL, voucher, runtime.logger));
  api.use(
    anonymousAuthRouter(runtime),
    accountRouter(authenticated),
    agentProcessRouter(runtime),
    playerRouter(runtime, liveWorld, authenticated),
    worldRouter(runtime, liveWorld, authenticated),
    charactersRouter(runtime, liveWorld, authenticated),
    agentsRouter(liveWorld, authenticated, runtime.config.WORLDS),
  );
  app.use("/api", api);
  // Without it Express answers an HTML page; Colyseus's own routes (/matchmake) never reach Express.
  app.use(notFound);
  app.use(errorHandler(runtime.logger));
}
