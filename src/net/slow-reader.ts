import type { WebSocket } from "ws";

/** Output a client may leave unread before it is disconnected as a slow reader. */
export const MAX_UNREAD_BYTES = 1024 * 1024;
/** Close code of a connection whose reader fell too far behind. */
export const CLOSE_SLOW_READER = 4008;
/** How long a slow reader closed with 4008 has to read up to its close frame before it is cut. */
const SLOW_READER_GRACE_MS = 5000;

/**
 * Whether sending `moreBytes` would leave more than `maxUnreadBytes` unread on `ws`; if so, closes it.
 * A reader that does not keep up would make the server buffer for it without bound, whatever kind of
 * client it is (a client can keep a heartbeat satisfied without reading). Its close frame waits behind
 * what it left unread, so a reader that catches up within the grace learns why (4008); one that does
 * not is cut then, rather than after `ws`'s own 30 s.
 */
export function closeIfSlowReader(
  ws: WebSocket,
  moreBytes: number,
  maxUnreadBytes = MAX_UNREAD_BYTES,
): boolean {
  if (ws.bufferedAmount + moreBytes <= maxUnreadBytes) return false;
  if (ws.readyState !== ws.OPEN) return true;
  ws.close(CLOSE_SLOW_READER, "slow reader");
  const cut = setTimeout(() => ws.terminate(), SLOW_READER_GRACE_MS);
  ws.once("close", () => clearTimeout(cut));
  return true;
}
