import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * Where an agent's SDK connects. Agents run in the process that holds the world, so they reach it at
 * `internal` (see src/server/internal-address.ts). Matchmaking names the room's public address instead when
 * one is set (PUBLIC_ADDRESS, or Colyseus Cloud's `subdomain.server/port`, which only its proxy in
 * front of the process resolves): a room connection to any other host goes to `internal` with the
 * same process and room (the path's last two segments) and query.
 */
export function throughOwnServer(url: URL, internal: URL): string {
  if (url.host === internal.host) return url.toString();
  const [processId, roomId] = url.pathname.split("/").slice(-2);
  const scheme = internal.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${internal.host}/${processId}/${roomId}${url.search}`;
}

const PASS_HEADER = "x-own-agent-pass";

/**
 * What this process's agents show with their matchmaking requests: a secret made at start-up. They
 * all come from the server's own address, and would otherwise share one client's REST limit, so
 * that a few hundred agents rejoining after a restart would be turned away.
 */
export class OwnAgentPass {
  private readonly secret = Buffer.from(randomBytes(32).toString("base64url"));

  /** The headers an agent's SDK client sends. */
  get headers(): Record<string, string> {
    return { [PASS_HEADER]: this.secret.toString() };
  }

  shownBy(request: IncomingMessage): boolean {
    const shown = request.headers[PASS_HEADER];
    if (typeof shown !== "string") return false;
    const bytes = Buffer.from(shown);
    return bytes.length === this.secret.length && timingSafeEqual(bytes, this.secret);
  }
}
