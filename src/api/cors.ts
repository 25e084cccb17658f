// The interface's cross-origin rules. Colyseus answers preflights and stamps CORS headers on every response from
// its own request listener, so the policy is installed there rather than as Express middleware.
import { matchMaker } from "@colyseus/core";
import type { Config } from "../config/config.js";

export type CorsConfig = Pick<
  Config,
  | "PUBLIC_APP_URL"
  | "CORS_ALLOWED_ORIGINS"
  | "CORS_PARTNER_ORIGINS"
  | "CORS_PREVIEW_HOST_SUFFIXES"
  | "CORS_IDP_HOST_SUFFIXES"
>;

const ALLOWED_METHODS = "GET, PUT, POST, DELETE, OPTIONS, PATCH";
const ALLOWED_HEADERS = "Content-Type, Authorization, X-Requested-With";
/**
 * A browser lets a cross-origin page read only a few response headers (Content-Type among them) unless
 * told otherwise: without these, the game client on its own origin would see a 429 but not when to retry.
 */
const EXPOSED_HEADERS = "Retry-After, RateLimit, RateLimit-Policy";

/**
 * The CORS headers for a request from `origin`: none at all when the origin is absent or not allowed,
 * but `Vary: Origin` always, since every response depends on it: a cache that stored a copy answered
 * without CORS headers must not serve it to an allowed origin (manifests are cached publicly).
 */
export function corsHeadersFor(
  origin: string | null | undefined,
  config: CorsConfig,
): Record<string, string> {
  if (!origin || !isAllowedOrigin(origin, config)) return { Vary: "Origin" };
  // The origin is echoed, never "*": credentials are allowed, and the interface forbids the wildcard in production.
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Credentials": "true",
    "Access-Control-Allow-Methods": ALLOWED_METHODS,
    "Access-Control-Allow-Headers": ALLOWED_HEADERS,
    "Access-Control-Expose-Headers": EXPOSED_HEADERS,
    Vary: "Origin",
  };
}

export function isAllowedOrigin(origin: string, config: CorsConfig): boolean {
  const url = parseOrigin(origin);
  // Browsers send the bare origin; anything with a path or different spelling is not one.
  if (!url || url.origin !== origin) return false;
  const exact = [...config.CORS_ALLOWED_ORIGINS, ...config.CORS_PARTNER_ORIGINS, config.PUBLIC_APP_URL];
  if (exact.some((allowed) => allowed !== undefined && parseOrigin(allowed)?.origin === url.origin))
    return true;
  if (url.hostname === "localhost") return true;
  const subdomainSuffixes = [...config.CORS_PREVIEW_HOST_SUFFIXES, ...config.CORS_IDP_HOST_SUFFIXES];
  return url.protocol === "https:" && subdomainSuffixes.some((suffix) => isSubdomainOf(url.hostname, suffix));
}

/** Replaces Colyseus's default policy (which reflects any origin with credentials) by the interface's. */
export function installCorsPolicy(config: CorsConfig): void {
  // Colyseus merges these defaults (a wildcard origin among them) under whatever getCorsHeaders returns.
  (matchMaker.controller as { DEFAULT_CORS_HEADERS: Record<string, string> }).DEFAULT_CORS_HEADERS = {};
  matchMaker.controller.getCorsHeaders = (headers: Headers) => corsHeadersFor(headers.get("origin"), config);
}

/** An http(s) origin (scheme, host and port only), or undefined for anything else, such as "null". */
function parseOrigin(value: string): URL | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
}

/** `suffix` is a domain such as ".vercel.app" (the leading dot is optional); the domain itself is not a subdomain. */
function isSubdomainOf(hostname: string, suffix: string): boolean {
  const domain = suffix.replace(/^\./, "").toLowerCase();
  return domain.length > 0 && hostname.endsWith(`.${domain}`);
}
