import { pino } from "pino";
import { isColorSupported, PinoPretty } from "pino-pretty";

export type Logger = pino.Logger;

/** `pretty`: a line for people to read (development); `json`: one JSON object a line (log collectors). */
export type LogFormat = "pretty" | "json";

export function createLogger(level: string | undefined, format: LogFormat): Logger {
  const options: pino.LoggerOptions = {
    level: level ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
    base: format === "json" ? { pid: process.pid } : null,
  };
  if (format === "json") return pino(options);
  // In this thread and synchronous, so that the last lines before an exit are not lost; only a
  // development server formats its lines.
  return pino(
    options,
    PinoPretty({
      sync: true,
      colorize: isColorSupported && process.stdout.isTTY,
      singleLine: true,
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname",
    }),
  );
}
