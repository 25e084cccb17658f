// The client's address as the game server found it, carried to the agent process with each /api/agents
// request it forwards: the agent process counts AGENTS_PER_ADDRESS by it, yet trusts no proxy header,
// since clients may call it directly too. The agent process vouches in turn for its caller's address as
// it asks the game server who the caller is. Both processes derive the same key from JWT_SECRET, which
// they share already; no client can vouch for an address without it.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";

const ADDRESS_HEADER = "x-tileworld-client-address";
const PROOF_HEADER = "x-tileworld-client-proof";

export interface AddressVoucher {
  /** The headers that vouch for `address`. */
  headers(address: string): Record<string, string>;
  /** The address a request carries with a valid proof, or undefined. */
  of(request: IncomingMessage): string | undefined;
}

export function addressVoucher(jwtSecret: Uint8Array): AddressVoucher {
  const key = createHmac("sha256", jwtSecret).update("tileworld agent forward").digest();
  const proofOf = (address: string) =>
    Buffer.from(createHmac("sha256", key).update(address).digest("base64url"));
  return {
    headers: (address) => ({ [ADDRESS_HEADER]: address, [PROOF_HEADER]: proofOf(address).toString() }),
    of: (request) => {
      const address = request.headers[ADDRESS_HEADER];
      const proof = request.headers[PROOF_HEADER];
      if (typeof address !== "string" || typeof proof !== "string") return undefined;
      const expected = proofOf(address);
      const shown = Buffer.from(proof);
      return shown.length === expected.length && timingSafeEqual(shown, expected) ? address : undefined;
    },
  };
}

/**
 * The game server's side: a request the agent process makes for a caller (asking who it is) is the
 * caller's, counted against its address (req.ip) rather than the agent process's, which every caller
 * would otherwise share and any one of them could spend.
 */
export function vouchedClientAddress(voucher: AddressVoucher): RequestHandler {
  return (req, _res, next) => {
    const vouched = voucher.of(req);
    if (vouched !== undefined) Object.defineProperty(req, "ip", { value: vouched, configurable: true });
    next();
  };
}
