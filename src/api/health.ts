import { Router } from "express";
import { within } from "../time-limit.js";
import { VERSION } from "../version.js";
import { errorBody } from "./errors.js";

const PING_TIMEOUT_MS = 2000;

/** Whether the world's writes reach its database, as the world running in this process finds. */
export type WorldDatabaseState =
  | { state: "ok" }
  /** Its writes fail, or one has run for long: the world holds its players' actions meanwhile. */
  | { state: "waiting"; sinceMs: number };

/**
 * The world of this process, when one runs here: it tells /health how its writes fare. The world's writes
 * have connections of their own, so a ping that answers says nothing of them.
 */
export class LocalWorldHealth {
  private source: (() => WorldDatabaseState) | undefined;

  /** The world opened here reports through `source` until it calls the returned function. */
  report(source: () => WorldDatabaseState): () => void {
    this.source = source;
    return () => {
      if (this.source === source) this.source = undefined;
    };
  }

  read(): WorldDatabaseState | undefined {
    return this.source?.();
  }
}

/**
 * GET /health: public; 503 "degraded" when the database does not answer in time, or when the world
 * running in this process waits for its database (its writes fail or hang). The body says which:
 * `database` ("ok" or "unavailable") and, where the world runs, `world` ({"database": "ok" | "waiting",
 * "waitingMs"?}). The 503 carries the health fields and CONTRACT's error body side by side, so both
 * readers find what they look for.
 */
export function healthRouter(ping: () => Promise<void>, world: LocalWorldHealth): Router {
  const databaseAnswers = sharedPing(ping);
  return Router().get("/health", async (_req, res) => {
    const answers = await databaseAnswers();
    const worldState = world.read();
    const worldWaits = worldState?.state === "waiting";
    const healthy = answers && !worldWaits;
    const health = {
      status: healthy ? "ok" : "degraded",
      timestamp: new Date().toISOString(),
      version: VERSION,
      database: answers ? "ok" : "unavailable",
      ...(worldState && {
        world: worldWaits
          ? { database: "waiting", waitingMs: worldState.sinceMs }
          : { database: "ok" as string },
      }),
    };
    const problem = answers
      ? "the world waits for its database: its writes fail or do not answer"
      : "the database does not answer";
    res
      .status(healthy ? 200 : 503)
      .set("Cache-Control", "no-store")
      .json(healthy ? health : { ...health, ...errorBody("unavailable", problem) });
  });
}

/**
 * Whether the database answers a ping within PING_TIMEOUT_MS. The endpoint is public and not counted
 * against any limit, so the requests that come while a ping is under way share it: a flood of health
 * checks would otherwise take the database's connections from the world's writes. A ping that has not
 * answered within the timeout is given up on, and the next request asks again.
 */
function sharedPing(ping: () => Promise<void>): () => Promise<boolean> {
  let current: { answered: Promise<boolean>; startedAt: number } | undefined;
  return () => {
    const now = Date.now();
    if (!current || now - current.startedAt >= PING_TIMEOUT_MS) {
      const started = {
        answered: ping().then(
          () => true,
          () => false,
        ),
        startedAt: now,
      };
      current = started;
      void started.answered.then(() => {
        if (current === started) current = undefined;
      });
    }
    return within(current.answered, PING_TIMEOUT_MS - (now - current.startedAt), false);
  };
}
