import type { RequestHandler } from "express";
import type { Logger } from "../telemetry/logger.js";

/**
 * Logs each HTTP request at debug once answered: method, path, status and time taken. Below debug it
 * is not installed at all, so a production server pays nothing for it.
 */
export function requestLog(logger: Logger): RequestHandler | undefined {
  if (!logger.isLevelEnabled("debug")) return undefined;
  return (req, res, next) => {
    const started = performance.now();
    // The path alone: a query may carry a token (/ws?token=...). Read now: a router mounted at /api has
    // cut its prefix off req.path by the time it answers.
    const { path } = req;
    res.once("finish", () => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      logger.debug(
        { method: req.method, path, status: res.statusCode, ms },
        `${req.method} ${path} ${res.statusCode} ${ms} ms`,
      );
    });
    next();
  };
}
