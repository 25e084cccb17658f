// How an open /ws connection is told that it cannot be (or go on being) in a world, then closed.
import { CloseCode, ServerError } from "@colyseus/core";
import { WebSocket } from "ws";
import { CLOSE_REMOVED, CLOSE_UNAVAILABLE } from "../protocol/close-codes.js";
import { BannedError, INTERNAL_JOIN_FAILURE } from "../rooms/room-auth.js";
import { WorldFullError } from "../rooms/world-choice.js";
import type { Logger } from "../telemetry/logger.js";

/** Tells a client whose join failed why, and closes its connection. */
export function closeOnJoinFailure(ws: WebSocket, error: unknown, logger: Logger): void {
  // A ServerError is meant for the client (no such character, the world closed); anything else is
  // the server's own failure, whose message (a query, an address) is not the client's business.
  const told = error instanceof ServerError;
  logger[told ? "warn" : "error"]({ err: error }, "/ws join failed");
  const message = told ? error.message : INTERNAL_JOIN_FAILURE;
  if (error instanceof WorldFullError)
    closeWithError(ws, "world_full", message, CLOSE_UNAVAILABLE, "world full");
  else if (error instanceof BannedError) closeWithError(ws, "banned", message, CLOSE_REMOVED, "banned");
  // A 503 (the database unavailable, the world closing) passes: the client is told to come back.
  else if (told && error.code === 503) closeWithError(ws, "unavailable", message, CLOSE_UNAVAILABLE);
  else closeWithError(ws, "join_failed", message, CloseCode.WITH_ERROR, "join failed");
}

/**
 * Sends the client an `error` frame `{ code, message, event: null }` (no frame of its caused it), then
 * closes its connection with `closeCode`.
 */
export function closeWithError(
  ws: WebSocket,
  code: string,
  message: string,
  closeCode: number,
  reason = code,
): void {
  if (ws.readyState === WebSocket.OPEN)
    ws.send(JSON.stringify({ event: "error", data: { code, message, event: null } }));
  ws.close(closeCode, reason);
}
