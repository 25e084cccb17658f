import { format } from "node:util";
import type { Logger } from "./logger.js";

type Level = "trace" | "debug" | "info" | "warn" | "error";

/**
 * Colyseus's logger, which it calls as it would `console` (any arguments, an error among them), writing
 * through the server's own: its lines are JSON with a level, as the rest of the log, instead of plain
 * text in the middle of it.
 */
export function colyseusLogger(logger: Logger): Record<Level, (...args: unknown[]) => void> {
  const at =
    (level: Level) =>
    (...args: unknown[]) => {
      const error = args.find((arg) => arg instanceof Error);
      const message = format(...args.filter((arg) => arg !== error));
      if (error) logger[level]({ err: error }, message || error.message);
      else logger[level](message);
    };
  return { trace: at("trace"), debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
