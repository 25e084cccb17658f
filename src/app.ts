import config from "@colyseus/tools";
import { WebSocketTransport } from "@colyseus/ws-transport";
import type express from "express";
import { healthRouter } from "./api/health.js";
import { mountApi } from "./api/index.js";
import { defineWorldRoom } from "./rooms/WorldRoom.js";
import type { Runtime } from "./runtime.js";

/** The Colyseus application of one server: transport, HTTP routes and rooms, built over a runtime. */
export function createApp(runtime: Runtime) {
  return config({
    displayLogs: false,
    options: {
      // Signals are handled by src/index.ts, which also closes the database after the rooms have saved.
      gracefullyShutdown: false,
      greet: false,
    },
    initializeTransport: () =>
      new WebSocketTransport({ noServer: true }).attachToServer(runtime.httpServer, {
        filter: (request) => !isJsonChannel(request.url),
      }),
    initializeExpress: (app: express.Application) => {
      app.disable("x-powered-by");
      app.use(healthRouter(() => runtime.database.ping()));
      mountApi(app, runtime);
    },
    initializeGameServer: (server) => {
      server.define("world", defineWorldRoom(runtime));
    },
  });
}

/** The /ws JSON channel has its own upgrade handler; every other upgrade goes to Colyseus. */
export function isJsonChannel(url: string | undefined): boolean {
  return (url ?? "").split("?")[0] === "/ws";
}
