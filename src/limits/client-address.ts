import type { IncomingMessage } from "node:http";

/**
 * The address a request came from, trusting `X-Forwarded-For` only for the `trustedHops` proxies
 * nearest to the server (TRUST_PROXY, as Express's numeric "trust proxy" does). Any hop further out
 * may have been written by the client itself.
 */
export function clientAddress(request: IncomingMessage, trustedHops: number): string | undefined {
  const forwarded = String(request.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  // Nearest first: the peer that connected, then the hops it says it forwarded for.
  const chain = [request.socket.remoteAddress, ...forwarded.reverse()];
  return chain[Math.min(trustedHops, chain.length - 1)];
}

/**
 * Makes an upgrade request's address headers say what `clientAddress` found: Colyseus reads the
 * client's address (for rate limits) from `X-Real-IP` first, and would otherwise believe any of them.
 * Returns the address.
 */
export function pinClientAddress(request: IncomingMessage, trustedHops: number): string | undefined {
  const address = clientAddress(request, trustedHops);
  delete request.headers["x-forwarded-for"];
  delete request.headers["x-client-ip"];
  if (address) request.headers["x-real-ip"] = address;
  else delete request.headers["x-real-ip"];
  return address;
}
