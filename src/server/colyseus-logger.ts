import { format } from "node:util";
import type { FrameSender } from "../rooms/frame-sender.js";
import type { Logger } from "../telemetry/logger.js";

type Level = "trace" | "debug" | "info" | "warn" | "error";

/**
 * Colyseus's logger, which it calls as it would `console` (any arguments, an error among them), writing
 * through the server's own: its lines are JSON with a level, as the rest of the log, instead of plain
 * text in the middle of it. A frame a client sent that Colyseus cannot decode is the client's fault, not
 * the server's: Colyseus reports it as an error with its stack, which is written as one warning a
 * connection, without the stack (`sender` tells whose frame it was).
 */
export function colyseusLogger(
  logger: Logger,
  sender: () => FrameSender | undefined = () => undefined,
): Record<Level, (...args: unknown[]) => void> {
  const warned = new WeakSet<FrameSender>();
  const at =
    (level: Level) =>
    (...args: unknown[]) => {
      const error = args.find((arg) => arg instanceof Error);
      const undecodable = level === "error" && undecodableFrame(error?.stack ?? args[0]);
      if (undecodable) {
        const from = sender();
        if (from && warned.has(from)) return;
        if (from) warned.add(from);
        logger.warn(
          { ...from, reason: undecodable },
          "an SDK client sent a frame that cannot be decoded: it is refused (logged once a connection)",
        );
        return;
      }
      const message = format(...args.filter((arg) => arg !== error));
      if (error) logger[level]({ err: error }, message || error.message);
      else logger[level](message);
    };
  return { trace: at("trace"), debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/**
 * The error's first line when `stack` is the stack of an error thrown by msgpackr, the decoder Colyseus
 * reads clients' frames with (and nothing else: it encodes with it, and its presence speaks JSON):
 * malformed bytes from a client. Undefined otherwise.
 */
function undecodableFrame(stack: unknown): string | undefined {
  if (typeof stack !== "string") return undefined;
  const lines = stack.split("\n");
  const topFrame = lines.find((line) => line.trimStart().startsWith("at "));
  return topFrame && /[/\\]msgpackr[/\\]/.test(topFrame) ? lines[0] : undefined;
}
