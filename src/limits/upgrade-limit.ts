import { type BeforeUpgradeHandler, matchMaker } from "@colyseus/core";
import { errorBody } from "../protocol/errors.js";
import { type AttemptCounter, clientKey } from "./rate-limits.js";

/** Colyseus's path of a room connection, `/<processId>/<roomId>`, as its transport reads it. */
const ROOM_PATH = /\/[a-zA-Z0-9_-]+\/([a-zA-Z0-9_-]+)$/;

/**
 * Counts each WebSocket upgrade that Colyseus takes (every path but /ws) as one REST request of its
 * client, as /ws counts its own: Colyseus opens a socket on any path, answering its latency probe on
 * every path that names no room, and one address could otherwise open hundreds a second. An upgrade
 * that takes a seat reserved for it (an SDK join, or its reconnection) is not counted again: its seat
 * request was. Past the limit the upgrade is refused with `429 rate_limited` and `Retry-After`.
 */
export function countColyseusUpgrades(requests: AttemptCounter): BeforeUpgradeHandler {
  return async (request, context) => {
    if (takesReservedSeat(new URL(request.url))) return undefined;
    const { limited, retryAfterSeconds } = await requests.hit(clientKey(context.ip));
    if (!limited) return undefined;
    return Response.json(errorBody("rate_limited", "too many requests; retry later"), {
      status: 429,
      headers: { "retry-after": String(retryAfterSeconds) },
    });
  };
}

function takesReservedSeat(url: URL): boolean {
  const sessionId = url.searchParams.get("sessionId");
  const roomId = ROOM_PATH.exec(url.pathname)?.[1];
  if (!sessionId || !roomId) return false;
  const reconnectionToken = url.searchParams.get("reconnectionToken") ?? undefined;
  return matchMaker.getLocalRoomById(roomId)?.hasReservedSeat(sessionId, reconnectionToken) ?? false;
}
