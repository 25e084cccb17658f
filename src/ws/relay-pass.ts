import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

const PASS_HEADER = "x-tileworld-relay";

export interface RelayPass {
  /** The headers a relayed upgrade carries. */
  headers: Record<string, string>;
  shownBy(request: IncomingMessage): boolean;
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
  return {
    headers: { [PASS_HEADER]: secret.toString() },
    shownBy: (request) => {
      const shown = request.headers[PASS_HEADER];
      if (typeof shown !== "string") return false;
      const bytes = Buffer.from(shown);
      return bytes.length === secret.length && timingSafeEqual(bytes, secret);
    },
  };
}
