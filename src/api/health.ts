import { Router } from "express";
import { VERSION } from "../version.js";

const PING_TIMEOUT_MS = 2000;

/** GET /health: public; 503 "degraded" when the database does not answer in time. */
export function healthRouter(ping: () => Promise<void>): Router {
  return Router().get("/health", async (_req, res) => {
    const healthy = await Promise.race([
      ping().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(resolve, PING_TIMEOUT_MS, false).unref()),
    ]);
    res
      .status(healthy ? 200 : 503)
      .set("Cache-Control", "no-store")
      .json({ status: healthy ? "ok" : "degraded", timestamp: new Date().toISOString(), version: VERSION });
  });
}
