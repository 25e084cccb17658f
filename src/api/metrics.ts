import { timingSafeEqual } from "node:crypto";
import { Router } from "express";
import type { Config } from "../config/config.js";
import { ServiceError } from "../protocol/errors.js";
import { scrapeMetrics } from "../telemetry/metrics.js";

/**
 * GET /metrics, Prometheus's text format: open in development; in production only with
 * `Authorization: Bearer <METRICS_TOKEN>`, and not there at all (404) while METRICS_TOKEN is unset.
 */
export function metricsRouter(config: Pick<Config, "production" | "METRICS_TOKEN">): Router {
  const token =
    config.METRICS_TOKEN === undefined ? undefined : Buffer.from(`Bearer ${config.METRICS_TOKEN}`);
  return Router().get("/metrics", async (req, res) => {
    if (config.production) {
      if (!token) throw new ServiceError("not_found", "no endpoint GET /metrics");
      const given = Buffer.from(req.get("authorization") ?? "");
      if (given.length !== token.length || !timingSafeEqual(given, token))
        throw new ServiceError("unauthorized", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>");
    }
    const { contentType, body } = await scrapeMetrics();
    res.status(200).set("Content-Type", contentType).set("Cache-Control", "no-store").send(body);
  });
}
