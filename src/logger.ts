import { pino } from "pino";

export type Logger = pino.Logger;

export function createLogger(level: string | undefined, production: boolean): Logger {
  return pino({
    level: level ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
    // Plain JSON lines in production (for log collectors); the same lines otherwise, to keep one format.
    base: production ? { pid: process.pid } : null,
  });
}
