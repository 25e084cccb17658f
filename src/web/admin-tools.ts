// @colyseus/monitor at /monitor and @colyseus/playground at /playground: with ADMIN_CODE, only to whoever
// gives it as the password of HTTP basic authentication (any user name), as the monitor can dispose of
// the world room and call any of its methods. Without it they are served in development only, to this
// machine's own pages; in production not at all.
import { createHash, timingSafeEqual } from "node:crypto";
import { basicAuth, Room } from "@colyseus/core";
import { monitor } from "@colyseus/monitor";
import type { Application, Request, RequestHandler, Response } from "express";
import { type AttemptCounter, clientKey } from "../limits/rate-limits.js";
import { errorBody } from "../protocol/errors.js";

// The playground imports @colyseus/auth, which swaps Colyseus's default static Room.onAuth for a JWT
// check of its own (with its own secret): the trade room inherits that static hook, so SDK clients'
// joins of a trade would be refused. The default is put back once the playground is loaded.
const frameworkOnAuth = Room.onAuth;
const { playground } = await import("@colyseus/playground");
Room.onAuth = frameworkOnAuth;

/**
 * The playground also patches every room's join (Room.prototype._onJoin) to send each client a message
 * of its own, `__playground_message_types`, which no protocol client expects (its list would be empty
 * here anyway: the rooms take every message through one wildcard handler). The join is put back as it
 * was; the package is pinned exactly and test/web/pages.test.ts fails if the patch comes back.
 */
function playgroundWithoutJoinMessage(options?: Parameters<typeof playground>[0]) {
  const prototype = Room.prototype as unknown as Record<"_onJoin", unknown>;
  const join = prototype._onJoin;
  const router = playground(options);
  prototype._onJoin = join;
  return router;
}

export interface AdminToolsOptions {
  production: boolean;
  adminCode: string | undefined;
  /** Wrong codes count as authentication attempts of the client's address. */
  authAttempts: AttemptCounter;
  /** TRUST_PROXY: how many proxies in front say who the client is. */
  trustProxy: number;
}

const REALM = 'Basic realm="tileworld admin", charset="UTF-8"';

export function mountAdminTools(app: Application, options: AdminToolsOptions): void {
  const adminCode = options.adminCode;
  if (!options.production && adminCode === undefined) {
    // The monitor runs any room method (moving items, speaking for any account): open, but to this
    // machine's own callers only, and never to a page of another site (a GET would do).
    app.use("/monitor", ownPagesOnly(options.trustProxy), monitor());
    app.use("/playground", ownPagesOnly(options.trustProxy), playgroundWithoutJoinMessage());
    return;
  }
  if (adminCode === undefined) return;
  const gate = adminGate(adminCode, options.authAttempts);
  // The playground serves its data in production only behind a guard of its own: the same check.
  const guard = basicAuth({
    validate: (_user, password) => sameSecret(password, adminCode),
    realm: "tileworld admin",
  });
  app.use("/monitor", ownSiteOnly, gate, monitor());
  app.use("/playground", ownSiteOnly, gate, playgroundWithoutJoinMessage({ use: [guard] }));
}

/**
 * Refuses what another site's page sent, and lets no other page read an answer (production, with
 * ADMIN_CODE): the browser that signed in to the monitor sends the code with whatever a page there sends,
 * and the interface's CORS rules let preview sites, which anyone can open, read answers with credentials.
 */
const ownSiteOnly: RequestHandler = (req, res, next) => {
  withoutCorsHeaders(res);
  if (!fromAnotherSite(req)) return next();
  res
    .status(403)
    .json(errorBody("forbidden", "/monitor and /playground answer their own pages only, not another site's"));
};

/** Takes off the CORS headers Colyseus puts on every response before Express sees the request. */
function withoutCorsHeaders(res: Response): void {
  for (const name of res.getHeaderNames()) if (name.startsWith("access-control-")) res.removeHeader(name);
}

/**
 * Lets through a request from this machine that no other site's page sent (development without
 * ADMIN_CODE). The client's address is the one the server trusts: behind TRUST_PROXY proxies, what they
 * say; with none trusted, a request a proxy says it forwarded (a tunnel, say) came from elsewhere.
 */
const ownPagesOnly =
  (trustProxy: number): RequestHandler =>
  (req, res, next) => {
    withoutCorsHeaders(res);
    const relayedUntrusted = trustProxy === 0 && isForwarded(req);
    if (isLoopback(req.ip) && !relayedUntrusted && !fromAnotherSite(req)) return next();
    res
      .status(403)
      .json(
        errorBody(
          "forbidden",
          "without ADMIN_CODE, /monitor and /playground answer pages of this server on this machine only; set ADMIN_CODE to open them elsewhere (it is then the password of HTTP basic authentication)",
        ),
      );
  };

/** Whether a proxy says it forwarded the request. */
function isForwarded(req: Request): boolean {
  return req.get("x-forwarded-for") !== undefined || req.get("forwarded") !== undefined;
}

function isLoopback(address: string | undefined): boolean {
  return address === "::1" || /^(::ffff:)?127\./.test(address ?? "");
}

/**
 * Whether a browser says another site's (or another port's) page sent the request. A browser that sends
 * Sec-Fetch-Site says so there; an older one by the page's address, compared with the server's own (as
 * the client addressed it: behind a trusted proxy, its X-Forwarded-Host).
 */
function fromAnotherSite(req: Request): boolean {
  const site = req.get("sec-fetch-site");
  if (site !== undefined) return site !== "same-origin" && site !== "none";
  const origin = req.get("origin") ?? req.get("referer");
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.host;
  } catch {
    return true;
  }
}

/**
 * Lets through a request whose basic-auth password is the admin code; a wrong one counts against the
 * limit. Past the limit even the right one is refused, or a guesser would tell it by its answer. The
 * right one is not counted: a browser sends it with every request of the monitor's page.
 */
function adminGate(adminCode: string, authAttempts: AttemptCounter): RequestHandler {
  return async (req, res, next) => {
    const password = basicPassword(req.headers.authorization);
    if (password !== undefined) {
      const key = clientKey(req.ip);
      const right = sameSecret(password, adminCode);
      const attempt = right ? await authAttempts.peek(key) : await authAttempts.hit(key);
      if (attempt.limited) {
        res.set("Retry-After", String(attempt.retryAfterSeconds));
        res.status(429).json(errorBody("rate_limited", "too many authentication attempts; retry later"));
        return;
      }
      if (right) return next();
    }
    // Answered here: the API's error handler would challenge for a bearer token, and browsers would not ask.
    res
      .status(401)
      .set("WWW-Authenticate", REALM)
      .json(
        errorBody("unauthorized", "the admin code is required, as the password of HTTP basic authentication"),
      );
  };
}

function basicPassword(header: string | undefined): string | undefined {
  const [scheme, encoded] = (header ?? "").split(" ");
  if (scheme?.toLowerCase() !== "basic" || !encoded) return undefined;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** Compared in constant time, over digests so that the lengths do not show either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
