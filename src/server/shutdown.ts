import type { Server } from "@colyseus/core";
import { within } from "../limits/time-limit.js";
import type { Runtime } from "../ports/runtime.js";
import { stopWatchingWorlds } from "../rooms/world-watch.js";
import type { Logger } from "../telemetry/logger.js";
import { endOpenSockets } from "./open-sockets.js";
import { stopWaitingForRedisWhenAway } from "./scale-out.js";

/** During a shutdown, a query of the world's running this long has hung (see stopServer). */
const HUNG_WRITE_MS = 2000;
const HUNG_WRITE_CHECK_MS = 500;
/**
 * A stop that has not finished by then exits all the same: container runtimes kill a process 10 s after
 * SIGTERM (Docker's default), and an exit of our own says why.
 */
const STOP_DEADLINE_MS = 9500;
/** How long the server waits, once its rooms are closed, for WebSocket peers to answer their close. */
const CLOSE_HANDSHAKE_GRACE_MS = 1000;
/**
 * How long it waits before that for the writer thread's last writes, behind which the rooms' close
 * frames wait: a thread starved for longer is stopped all the same, its connections closed unanswered.
 */
const LAST_WRITES_MS = 3000;

/**
 * Stops one server in order: the agents leave, no new connections, rooms disconnect their clients and
 * persist their state, then the HTTP server and the database close.
 */
export async function stopServer(server: Server, runtime: Runtime): Promise<void> {
  // A write of the world's that hangs on a silent connection would hold the shutdown until the query
  // timeout: one running this long is given up on, and the world's last write tries a new connection.
  const hungWrites = setInterval(() => {
    const abandoned = runtime.database.abandonWorldQueries(HUNG_WRITE_MS);
    if (abandoned > 0)
      runtime.logger.warn(
        { abandoned },
        "shutdown: gave up on the world's writes the database does not answer",
      );
  }, HUNG_WRITE_CHECK_MS);
  try {
    // The agents leave first, as players logging out: none of them then tries to come back.
    await runtime.agents.close();
    stopWatchingWorlds();
    stopWaitingForRedisWhenAway();
    await server.gracefullyShutdown(false);
  } finally {
    clearInterval(hungWrites);
  }
  // The grace counts from when the close frames have left, not from when they were queued.
  if ((await within(runtime.outbox.written(), LAST_WRITES_MS, "late")) === "late")
    runtime.logger.warn(
      "shutdown: the writer thread's last writes did not finish; closing their connections",
    );
  const closed = new Promise<void>((resolve) => runtime.httpServer.close(() => resolve()));
  runtime.httpServer.closeAllConnections();
  // The rooms have said goodbye: a peer that has not finished its close handshake by now never will.
  if ((await within(closed, CLOSE_HANDSHAKE_GRACE_MS, "late")) === "late") {
    endOpenSockets(runtime.httpServer);
    await closed;
  }
  await runtime.close();
}

/** First SIGTERM or SIGINT: graceful stop, then exit. A second signal: exit at once. */
export function exitOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting`);
      process.exit(130);
    }
    stopping = true;
    logger.info(`${signal}: shutting down (send it again to exit at once)`);
    setTimeout(() => {
      logger.error(`shutdown did not finish within ${STOP_DEADLINE_MS} ms: exiting without waiting`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    stop().then(
      () => {
        logger.info("shutdown complete");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}

/**
 * Failures nothing caught, logged as JSON like everything else. A rejection nobody handled is logged
 * and the server goes on (Colyseus loads @pm2/io, which keeps the process up after one anyway). An
 * uncaught exception ends the process: the world may be half-changed, and what the last tick wrote
 * is what a restart begins from.
 */
export function logProcessFailures(logger: Logger): void {
  process.on("unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled promise rejection"));
  process.on("uncaughtException", (error) => {
    logger.fatal({ err: error }, "uncaught exception: exiting");
    process.exit(1);
  });
}
