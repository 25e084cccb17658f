// The answers to a /ws upgrade that is not let through: an HTTP status and the protocol's error body.
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { BEARER_CHALLENGE } from "../api/errors.js";
import type { AuthRefusal } from "../auth/verify.js";
import { WORLD_UNREACHABLE_MESSAGE } from "../rooms/live-world.js";
import type { WorldRefusal } from "../rooms/world-choice.js";

export const WORLD_UNREACHABLE: AuthRefusal = {
  status: 503,
  code: "unavailable",
  message: WORLD_UNREACHABLE_MESSAGE,
};

export const LOGIN_TOO_OLD: AuthRefusal = {
  status: 503,
  code: "unavailable",
  message: "this login waited too long in the server and was dropped; connect again",
};

/** Refuses an upgrade with an HTTP status and the protocol's error body (and Retry-After with a 429). */
export function refuse(
  socket: Duplex,
  { status, code, message, retryAfterSeconds }: AuthRefusal | (WorldRefusal & { retryAfterSeconds?: never }),
): void {
  const body = JSON.stringify({ error: { code, message } });
  const reason = STATUS_CODES[status] ?? "Error";
  const retryAfter = retryAfterSeconds === undefined ? "" : `Retry-After: ${retryAfterSeconds}\r\n`;
  const challenge = status === 401 ? `WWW-Authenticate: ${BEARER_CHALLENGE}\r\n` : "";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${retryAfter}${challenge}Connection: close\r\n\r\n${body}`,
  );
}
