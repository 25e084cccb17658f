import { pino } from "pino";
import type { Logger } from "../../src/telemetry/logger.js";

/** A line of the server's JSON log, as a test reads it. */
export interface LogLine {
  level: number;
  msg: string;
  err?: { message: string };
  [field: string]: unknown;
}

/** A logger at `level` whose lines are kept, parsed, in `lines`: for tests of what the server logs. */
export function recordingLogger(level: string): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level, base: null }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}
