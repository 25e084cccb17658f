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
  return Router().get("/health", async (_req, res) => {
    const answered = ping().then(
      () => true,
      () => false,
    );
    const healthy = await within(answered, PING_TIMEOUT_MS, false);
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
