import { timingSafeEqual } from "node:crypto";
import { Router } from "express";
import { bearerToken } from "../auth/tokens.js";
import type { Config } from "../config/config.js";
import { type AttemptCounter, clientKey } from "../limits/rate-limits.js";
import { ServiceError } from "../protocol/errors.js";
import { scrapeMetrics } from "../telemetry/metrics.js";

/**
 * GET /metrics, Prometheus's text format: open in development; in production only with
 * `Authorization: Bearer <METRICS_TOKEN>`, and not there at all (404) while METRICS_TOKEN is unset. A
 * wrong token counts as an authentication attempt of the caller's address; past the limit even the
 * right one is refused (429), or a guesser would tell it by its answer. The right one is not counted:
 * Prometheus scrapes with it every few seconds.
 */
export function metricsRouter(
  config: Pick<Config, "production" | "METRICS_TOKEN">,
  authAttempts: AttemptCounter,
): Router {
  const token = config.METRICS_TOKEN === undefined ? undefined : Buffer.from(config.METRICS_TOKEN);
  return Router().get("/metrics", async (req, res) => {
    if (config.production) {
      if (!token) throw new ServiceError("not_found", "no endpoint GET /metrics");
      // The scheme's name is case-insensitive, as for the API's tokens.
      const given = bearerToken(req.get("authorization"));
      const right =
        given !== undefined &&
        Buffer.byteLength(given) === token.length &&
        timingSafeEqual(Buffer.from(given), token);
      const key = clientKey(req.ip);
      const attempt = right ? await authAttempts.peek(key) : await authAttempts.hit(key);
      if (attempt.limited) {
        res.set("Retry-After", String(attempt.retryAfterSeconds));
        throw new ServiceError("rate_limited", "too many authentication attempts; retry later");
      }
      if (!right)
        throw new ServiceError("unauthorized", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>");
    }
    const { contentType, body } = await scrapeMetrics();
    res.status(200).set("Content-Type", contentType).set("Cache-Control", "no-store").send(body);
  });
}
