import { Router } from "express";
import { VERSION } from "../config/version.js";
import { within } from "../limits/time-limit.js";
import type { WorldSummary } from "../ports/live-world.js";
import type { LocalWorldHealth } from "../ports/world-health.js";
import { errorBody } from "../protocol/errors.js";

const PING_TIMEOUT_MS = 2000;
/** How long the worlds' player counts are shown again before they are asked anew, and how long asked. */
const WORLDS_FRESH_MS = 1000;

/**
 * `worlds`: the numbered worlds with their players, which the health shows too: it is the one public
 * endpoint, and the landing page shows them to people who have not signed in.
 */
export function healthRouter(
  ping: () => Promise<void>,
  world: LocalWorldHealth,
  worlds: () => Promise<WorldSummary[]>,
): Router {
  const databaseAnswers = sharedPing(ping);
  const worldsNow = recently(worlds);
  return Router().get("/health", async (_req, res) => {
    const [answers, summaries] = await Promise.all([databaseAnswers(), worldsNow()]);
    const worldState = world.read();
    const worldWaits = worldState?.state === "waiting";
    const healthy = answers && !worldWaits;
    const health = {
      status: healthy ? "ok" : "degraded",
      timestamp: new Date().toISOString(),
      version: VERSION,
      database: answers ? "ok" : "unavailable",
      ...(summaries && {
        playersOnline: summaries.reduce((sum, summary) => sum + summary.playersOnline, 0),
        worlds: summaries,
      }),
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

/**
 * `ask`'s last answer while under WORLDS_FRESH_MS old, else a new one, shared by the requests that come
 * meanwhile; undefined when it fails or takes longer than WORLDS_FRESH_MS (the health answers without).
 */
function recently<T>(ask: () => Promise<T>): () => Promise<T | undefined> {
  let last: { answer: Promise<T | undefined>; at: number } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= WORLDS_FRESH_MS) {
      const answer = ask().catch(() => undefined);
      last = { answer: within(answer, WORLDS_FRESH_MS, undefined), at: now };
    }
    return last.answer;
  };
}
