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
  /** Whether the Redis that processes share is reached; undefined when the process is not scaled out. */
  reachesRedis: () => boolean | undefined = () => undefined,
): Router {
  // A ping is shared while under way; the worlds' counts are shown again for a second.
  const databaseAnswers = shared(() => ping().then(() => true), {
    keepMs: 0,
    timeoutMs: PING_TIMEOUT_MS,
    fallback: false,
  });
  const worldsNow = shared(worlds, {
    keepMs: WORLDS_FRESH_MS,
    timeoutMs: WORLDS_FRESH_MS,
    fallback: undefined,
  });
  return Router().get("/health", async (_req, res) => {
    const [answers, summaries] = await Promise.all([databaseAnswers(), worldsNow()]);
    const worldState = world.read();
    const worldWaits = worldState?.state === "waiting";
    const redis = reachesRedis();
    const healthy = answers && !worldWaits && redis !== false;
    const health = {
      status: healthy ? "ok" : "degraded",
      timestamp: new Date().toISOString(),
      version: VERSION,
      database: answers ? "ok" : "unavailable",
      ...(redis !== undefined && { redis: redis ? "ok" : "unavailable" }),
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
    const problem = !answers
      ? "the database does not answer"
      : redis === false
        ? "Redis, where the processes share their rooms, cannot be reached: joins are refused"
        : "the world waits for its database: its writes fail or do not answer";
    res
      .status(healthy ? 200 : 503)
      .set("Cache-Control", "no-store")
      .json(healthy ? health : { ...health, ...errorBody("unavailable", problem) });
  });
}

/**
 * `ask`, its answer shared by the requests that come while it is under way (for at most `timeoutMs`) or
 * within `keepMs` of its asking; an ask that fails or has not answered within `timeoutMs` answers
 * `fallback`, and the next request asks again. The endpoint is public and not counted against any
 * limit: a flood of health checks must not become a flood of pings taking the database's connections
 * from the world's writes, nor of questions to the worlds.
 */
function shared<T, F>(
  ask: () => Promise<T>,
  { keepMs, timeoutMs, fallback }: { keepMs: number; timeoutMs: number; fallback: F },
): () => Promise<T | F> {
  let last: { answer: Promise<T | F>; askedAt: number; settled: boolean } | undefined;
  return () => {
    const now = Date.now();
    const age = last ? now - last.askedAt : Number.POSITIVE_INFINITY;
    if (!last || age >= timeoutMs || (last.settled && age >= keepMs)) {
      const answer: Promise<T | F> = within<T | F, F>(
        ask().catch(() => fallback),
        timeoutMs,
        fallback,
      );
      const asked = { answer, askedAt: now, settled: false };
      void answer.then(() => {
        asked.settled = true;
      });
      last = asked;
    }
    return last.answer;
  };
}
