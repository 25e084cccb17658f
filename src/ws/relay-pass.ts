import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AuthContext } from "@colyseus/core";
import type { Identity } from "../auth/tokens.js";
import { vouchedIdentity } from "../rooms/room-auth.js";
import type { RelayTarget } from "./relay.js";

const PASS_HEADER = "x-tileworld-relay";
/** The identity the relaying process found the connection's token to prove. */
const IDENTITY_HEADER = "x-tileworld-identity";
const KINDS: readonly Identity["kind"][] = ["idp", "anonymous", "agent"];

export interface RelayPass {
  /** The headers a relayed upgrade carries. */
  headers: Record<string, string>;
  shownBy(request: IncomingMessage): boolean;
  /** The header that carries the identity the connection was admitted with, where it arrived. */
  identityHeaders(identity: Identity): Record<string, string>;
  /**
   * The identity a relayed upgrade carries, when it shows the pass: a connection stays signed in for its
   * life, so a hop to another process long after its token expired is taken as the same client.
   */
  identityOf(request: IncomingMessage): Identity | undefined;
}

/**
 * What a /ws connection relayed by another process of this server shows to the world's process (see
 * relay.ts): it was counted against its client's limit where it arrived, and arrives here from that
 * process's address, where it would be counted again, with every other relayed client's. Every process
 * derives the same pass from JWT_SECRET, which they share already; no client can make it without that.
 */
export function relayPass(jwtSecret: Uint8Array): RelayPass {
  const secret = Buffer.from(
    createHmac("sha256", jwtSecret).update("tileworld /ws relay").digest("base64url"),
  );
  const shownBy = (request: IncomingMessage) => {
    const shown = request.headers[PASS_HEADER];
    if (typeof shown !== "string") return false;
    const bytes = Buffer.from(shown);
    return bytes.length === secret.length && timingSafeEqual(bytes, secret);
  };
  return {
    headers: { [PASS_HEADER]: secret.toString() },
    shownBy,
    identityHeaders: ({ subject, kind }) => ({
      [IDENTITY_HEADER]: Buffer.from(JSON.stringify({ subject, kind })).toString("base64url"),
    }),
    identityOf: (request) => {
      const carried = request.headers[IDENTITY_HEADER];
      if (typeof carried !== "string" || !shownBy(request)) return undefined;
      try {
        const { subject, kind } = JSON.parse(Buffer.from(carried, "base64url").toString());
        return typeof subject === "string" && KINDS.includes(kind) ? { subject, kind } : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The /ws channel of the process a world runs on (at `publicAddress`), with the token, the character and
 * the world, as a relay there presents them.
 */
export function relayTarget(
  pass: RelayPass,
  publicWsUrl: string | undefined,
  publicAddress: string,
  {
    worldId,
    characterId,
    context,
    request,
  }: {
    worldId: number;
    characterId: string | null | undefined;
    context: AuthContext;
    /** The upgrade being relayed; none for a hop. */
    request: IncomingMessage | undefined;
  },
): RelayTarget {
  // Processes are reached the way clients reach them: over TLS when the public /ws address is.
  const scheme = publicWsUrl?.startsWith("wss:") ? "wss" : "ws";
  const target = new URL(`${scheme}://${publicAddress}/ws`);
  if (characterId) target.searchParams.set("characterId", characterId);
  target.searchParams.set("world", String(worldId));
  const identity = vouchedIdentity(context);
  const headers: Record<string, string> = {
    authorization: `Bearer ${context.token}`,
    ...pass.headers,
    ...(identity && pass.identityHeaders(identity)),
  };
  // The client's address as found here (see pinClientAddress; a hop has no request, but the address its
  // connection was admitted with), for a world process that trusts this hop.
  const address = request?.headers["x-real-ip"] ?? context.ip;
  if (typeof address === "string") headers["x-forwarded-for"] = address;
  return { url: target.toString(), headers };
}
