import { Router } from "express";
import { within } from "../time-limit.js";
import { VERSION } from "../version.js";
import { errorBody } from "./errors.js";

const PING_TIMEOUT_MS = 2000;

/**
 * GET /health: public; 503 "degraded" when the database does not answer in time. The 503 carries the
 * health fields and CONTRACT's error body side by side, so both readers find what they look for.
 */
export function healthRouter(ping: () => Promise<void>): Router {
  const databaseAnswers = sharedPing(ping);
  return Router().get("/health", async (_req, res) => {
    const healthy = await databaseAnswers();
    const health = {
      status: healthy ? "ok" : "degraded",
      timestamp: new Date().toISOString(),
      version: VERSION,
    };
    res
      .status(healthy ? 200 : 503)
      .set("Cache-Control", "no-store")
      .json(healthy ? health : { ...health, ...errorBody("unavailable", "the database does not answer") });
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
