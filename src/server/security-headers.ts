// The hardening headers of every HTTP answer, of the game server and of the agent process alike, with
// helmet: no MIME sniffing, a Referrer-Policy, no framing by other sites, and a Content-Security-Policy
// that lets the pages of web/ load only their own scripts and styles and connect only where /env.js
// sends them. HSTS is left off: the server does not know whether the browser reached it over HTTPS, and
// the proxy that terminates TLS is the one to send it.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, RequestHandler } from "express";
import helmet from "helmet";

/** Where a page served for this request connects besides its own origin: URLs, of which the origins count. */
export type ConnectAddresses = (req: Request) => string[];

/** The policy both apps start from: the pages of web/ (plain modules, one stylesheet, no inline script). */
const PAGE_POLICY = {
  "default-src": ["'self'"],
  "base-uri": ["'self'"],
  "object-src": ["'none'"],
  "script-src": ["'self'"],
  "script-src-attr": ["'none'"],
  "style-src": ["'self'"],
  // The pages draw their bars by setting a width in a style attribute (el("span", {style})).
  "style-src-attr": ["'unsafe-inline'"],
  // The pages' icon is `data:,`, which stops the browser asking for /favicon.ico.
  "img-src": ["'self'", "data:"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'self'"],
};

/**
 * Helmet's headers with the pages' Content-Security-Policy. `connectTo` names the addresses the pages
 * are told to use (PUBLIC_API_URL, PUBLIC_WS_URL), which may be other origins than the page's own.
 */
export function securityHeaders(connectTo: ConnectAddresses = () => []): RequestHandler {
  return hardening(connectTo);
}

/** The same headers for the answers given outside Express (Colyseus's matchmaking routes, all JSON). */
export const matchmakingHeaders = hardening(() => []);

function hardening(connectTo: ConnectAddresses) {
  // Helmet passes Node's request; as Express middleware it is Express's.
  const connectSources = (req: IncomingMessage, _res: ServerResponse) =>
    uniqueOrigins(connectTo(req as Request)).join(" ");
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { ...PAGE_POLICY, "connect-src": ["'self'", connectSources] },
    },
    // Other sites' pages load /env.js and the manifests as a frontend's configuration and game data.
    crossOriginResourcePolicy: { policy: "cross-origin" },
    // Full addresses stay within the site; other sites, the API's among them, are told nothing.
    referrerPolicy: { policy: "same-origin" },
    strictTransportSecurity: false,
  });
}

/** The monitor's prebuilt page: its UI library (MUI) inserts <style> elements, and it uses Google's icon font. */
export const monitorPolicy: RequestHandler = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    ...PAGE_POLICY,
    "style-src": ["'self'", "'unsafe-inline'", "https://fonts.googleapis.com"],
    "font-src": ["'self'", "https://fonts.gstatic.com"],
  },
});

/**
 * The playground's prebuilt page: besides inserting <style> elements, it compiles JSON-schema validators
 * and msgpack decoders with `new Function`, and its JSON editor checks syntax in a worker made from a
 * blob: URL that loads its code from a data: URL.
 */
export const playgroundPolicy: RequestHandler = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    ...PAGE_POLICY,
    "script-src": ["'self'", "'unsafe-eval'", "data:"],
    "worker-src": ["'self'", "blob:"],
    "style-src": ["'self'", "'unsafe-inline'"],
    // Scaled out, a room it joins may be on another process's public address (PUBLIC_ADDRESS).
    "connect-src": ["'self'", "ws:", "wss:"],
  },
});

/**
 * The origins of the given addresses, each checked to be a plain scheme://host[:port]: they come partly
 * from the request's Host header, which must not add a directive to the policy.
 */
function uniqueOrigins(addresses: string[]): string[] {
  const origins = new Set<string>();
  for (const address of addresses) {
    if (!URL.canParse(address)) continue;
    const origin = new URL(address).origin;
    if (/^(https?|wss?):\/\/[a-z0-9.\-[\]:]+$/i.test(origin)) origins.add(origin);
  }
  return [...origins];
}
