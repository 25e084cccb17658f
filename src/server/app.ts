import "../config/quiet-env-files.js";
import { matchMaker } from "@colyseus/core";
import config from "@colyseus/tools";
import { WebSocketTransport } from "@colyseus/ws-transport";
import type express from "express";
import { publishedAddresses } from "../api/env-js.js";
import { healthRouter } from "../api/health.js";
import { mountApi } from "../api/index.js";
import { metricsRouter } from "../api/metrics.js";
import { requestLog } from "../api/request-log.js";
import { pinClientAddress } from "../limits/client-address.js";
import { limitMatchmaking } from "../limits/matchmaking-limit.js";
import { countColyseusUpgrades } from "../limits/upgrade-limit.js";
import { manifestRouter } from "../manifests/routes.js";
import type { Runtime } from "../ports/runtime.js";
import { errorBody } from "../protocol/errors.js";
import { MAX_READ_BYTES } from "../protocol/messages.js";
import { frameBeingRead } from "../rooms/frame-sender.js";
import { roomLiveWorld } from "../rooms/live-world.js";
import { defineTradeRoom } from "../rooms/TradeRoom.js";
import { defineWorldRoom, type WorldRoom } from "../rooms/WorldRoom.js";
import {
  announceWorldClosed,
  answerRelistRequests,
  openFreeWorld,
  openWorld,
  reopenWorldWhenClosedElsewhere,
  scopeWorldChannels,
  WORLD_FILTER,
} from "../rooms/world-listing.js";
import { noteWorldRunning, watchWorlds } from "../rooms/world-watch.js";
import { mountAdminTools } from "../web/admin-tools.js";
import { webPagesRouter } from "../web/pages.js";
import { JsonChannel } from "../ws/channel.js";
import { colyseusLogger } from "./colyseus-logger.js";
import { internalAddress } from "./internal-address.js";
import { reachesRedis, scaleOutThrough } from "./scale-out.js";
import { matchmakingHeaders, monitorPolicy, playgroundPolicy, securityHeaders } from "./security-headers.js";

/** The Colyseus application of one server: transport, HTTP routes and rooms, built over a runtime. */
export function createApp(runtime: Runtime) {
  return config({
    displayLogs: false,
    options: {
      // Signals are handled by src/server/index.ts, which also closes the database after the rooms have saved.
      gracefullyShutdown: false,
      greet: false,
      logger: colyseusLogger(runtime.logger, frameBeingRead),
      // Scaled out, processes share room listings and messages through Redis; alone, everything is local.
      ...(runtime.config.REDIS_URL &&
        scaleOutThrough(runtime.config.REDIS_URL, runtime.logger, {
          forgetFailedLookups: runtime.config.FORGET_FAILED_ROOM_LOOKUPS,
        })),
      publicAddress: runtime.config.PUBLIC_ADDRESS,
    },
    initializeTransport: () => {
      const channel = new JsonChannel(runtime);
      // SDK joins are authenticated at the matchmaker's HTTP routes (see defineWorldRoom), which Colyseus
      // puts in place once the server listens: just after, they go behind the REST limit.
      runtime.httpServer.once("listening", () =>
        process.nextTick(() =>
          limitMatchmaking(runtime.httpServer, {
            requests: runtime.rateLimits.restRequests,
            trustProxy: runtime.config.TRUST_PROXY,
            exempt: (request) => runtime.agents.pass.shownBy(request),
            harden: matchmakingHeaders,
            logger: runtime.logger,
          }),
        ),
      );
      // Registered before the transport's own listener, so both kinds of connection see the pinned address.
      runtime.httpServer.on("upgrade", (request, socket, head) => {
        pinClientAddress(request, runtime.config.TRUST_PROXY);
        if (isJsonChannel(request.url)) void channel.handleUpgrade(request, socket, head);
      });
      runtime.httpServer.on("close", () => channel.close());
      // Agents are clients of this very server: they join once it listens.
      runtime.httpServer.once("listening", () => {
        internalAddress(runtime.httpServer)
          .then((address) => runtime.agents.listening(address))
          .catch((error: unknown) => runtime.logger.error({ err: error }, "starting the agents failed"));
      });
      const beforeUpgrade = countColyseusUpgrades(runtime.rateLimits.restRequests);
      // Messages up to 64 kB are read, as on /ws, so that one over the protocol's size is answered
      // (frame_too_large) rather than cutting the connection (see rooms/message-sizes.ts).
      return new WebSocketTransport({
        noServer: true,
        beforeUpgrade,
        maxPayload: MAX_READ_BYTES,
      }).attachToServer(runtime.httpServer, {
        filter: (request) => !isJsonChannel(request.url),
      });
    },
    initializeExpress: (app: express.Application) => {
      app.disable("x-powered-by");
      const logged = requestLog(runtime.logger);
      if (logged) app.use(logged);
      app.set("trust proxy", runtime.config.TRUST_PROXY);
      // On every answer Express gives; the pages may connect wherever /env.js tells them to.
      app.use(securityHeaders((req) => publishedAddresses(runtime.config, req)));
      // Not counted against the REST limit, which covers /api only: health, metrics and game data files.
      const liveWorld = roomLiveWorld(() => runtime.agents.storedWorlds());
      app.use(
        healthRouter(
          () => runtime.database.ping(),
          runtime.worldHealth,
          () => liveWorld.worlds(runtime.config.WORLDS, runtime.config.WORLD_CAPACITY),
          reachesRedis,
        ),
        metricsRouter(runtime.config, runtime.rateLimits.authAttempts),
      );
      // /ws is a WebSocket: a plain request there (a browser's, say) is told so rather than "not found".
      app.get("/ws", (_req, res) => {
        res
          .status(426)
          .set("Upgrade", "websocket")
          .json(
            errorBody("upgrade_required", "/ws is a WebSocket endpoint: connect with a WebSocket client"),
          );
      });
      app.use(
        "/manifests",
        manifestRouter(() => runtime.manifestDir),
      );
      // Pages for people (/, /play, /dashboard) and Colyseus's monitor and playground.
      app.use(webPagesRouter());
      // Their prebuilt pages cannot run under the pages' policy: each gets one that fits it.
      app.use("/monitor", monitorPolicy);
      app.use("/playground", playgroundPolicy);
      mountAdminTools(app, {
        production: runtime.config.production,
        adminCode: runtime.config.ADMIN_CODE,
        authAttempts: runtime.rateLimits.authAttempts,
        trustProxy: runtime.config.TRUST_PROXY,
      });
      // Last: it ends with the 404 of whatever no route above answered.
      mountApi(app, runtime, liveWorld);
    },
    initializeGameServer: (server) => {
      // Clients join rooms; only the server creates them (a second world, or a forged trade, is refused).
      matchMaker.controller.exposedMethods = ["joinOrCreate", "join", "joinById", "reconnect"];
      // One room a numbered world, told apart by the `world` join option. Each world's agents run where
      // it does.
      server
        .define("world", defineWorldRoom(runtime))
        .filterBy([WORLD_FILTER])
        .on("create", (world: WorldRoom) => {
          if (runtime.config.REDIS_URL)
            noteWorldRunning(world.worldId).catch((error: unknown) =>
              runtime.logger.warn({ err: error, world: world.worldId }, "noting that the world runs failed"),
            );
          // With an agent process configured, the agents run there (and join the worlds as clients).
          if (runtime.config.AGENT_FRAMEWORK_URL) return;
          runtime.agents
            .host(world.worldId, world.writeFence)
            .catch((error: unknown) =>
              runtime.logger.error({ err: error, world: world.worldId }, "starting the agents failed"),
            );
        })
        .on("dispose", (world: WorldRoom) => {
          void runtime.agents.stopWorld(world.worldId);
          announceWorldClosed(world.worldId);
        });
      server.define("trade", defineTradeRoom(runtime));
    },
    // A world opens with the server (the lowest-numbered that runs nowhere), before any player comes.
    beforeListen: async () => {
      scopeWorldChannels(runtime.config.REDIS_URL);
      // First the rooms of processes that died are unlisted (as the matchmaker does once it accepts), so
      // that a dead process's world does not stand in for this one.
      await matchMaker.healthCheckAllProcesses();
      if (runtime.config.REDIS_URL)
        await answerRelistRequests((error) =>
          runtime.logger.warn({ err: error }, "listing this process's rooms again, as asked, failed"),
        );
      await openFreeWorld(runtime.config.WORLDS);
      await openAgentWorldsWhenAlone(runtime);
      await reopenWorldWhenClosedElsewhere((error) =>
        runtime.logger.error({ err: error }, "opening the world after it closed elsewhere failed"),
      );
      // Alone, no other process holds a world that could die.
      if (runtime.config.REDIS_URL)
        watchWorlds(runtime.config.WORLDS, {
          reopening: (world) =>
            runtime.logger.warn(
              { world },
              `world ${world} runs nowhere (its process is gone): opening it here`,
            ),
          failed: (error) =>
            runtime.logger.error({ err: error }, "looking for worlds whose process is gone failed"),
        });
    },
  });
}

/**
 * The /ws JSON channel has its own upgrade handler; every other upgrade goes to Colyseus. `/ws/` is the
 * channel too: PUBLIC_WS_URL may be written so (and /env.js publishes it as written), and Colyseus would
 * take it for its latency probe, opening the socket only to close it a second later without a word.
 */
export function isJsonChannel(url: string | undefined): boolean {
  return (url ?? "").split("?")[0]!.replace(/\/+$/, "") === "/ws";
}

/**
 * A process without Redis is the only one: it also opens, at start, the worlds its stored agents play
 * in (besides the one openFreeWorld opened), so those agents come back with the server rather than at
 * their world's first join. Scaled out, the worlds are left to the processes that start after this one.
 */
async function openAgentWorldsWhenAlone(runtime: Runtime): Promise<void> {
  const { REDIS_URL, AGENT_FRAMEWORK_URL } = runtime.config;
  if (REDIS_URL || AGENT_FRAMEWORK_URL) return;
  try {
    for (const world of await runtime.agents.storedWorlds()) await openWorld(world);
  } catch (error) {
    // The first agent request opens them too (see roomLiveWorld).
    runtime.logger.error({ err: error }, "opening the worlds of the stored agents failed");
  }
}
