import path from "node:path";
import { z } from "zod";
import { WRITE_PATHS } from "./net/write-path.js";
import { StartupError } from "./startup-error.js";

/** SPEC: the asset host listens on port 8080 in local development. */
export const LOCAL_CDN_URL = "http://localhost:8080";

/** Variables without which a production server refuses to start (SPEC.md, configuration table). */
export const REQUIRED_IN_PRODUCTION = [
  "DATABASE_URL",
  "JWT_SECRET",
  "ADMIN_CODE",
  "PUBLIC_IDP_APP_ID",
  "IDP_APP_SECRET",
] as const;

// Blank values never get here (see withoutBlanks): a string is trimmed, and is never empty.
const optionalString = z.string().trim().optional();

const flag = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((value) => value === "true" || value === "1");

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The list variables' schemas: for these, an empty value is an empty list, not an unset variable. */
const listSchemas = new WeakSet<z.ZodType>();

/** Comma-separated list; blank entries are dropped. */
const list = (fallback: string[]) => {
  const schema = z
    .string()
    .optional()
    .transform((value) =>
      value === undefined
        ? fallback
        : value
            .split(",")
            .map((entry) => entry.trim())
            .filter(Boolean),
    );
  listSchemas.add(schema);
  return schema;
};

const optionalUrl = optionalString.pipe(z.url().optional());

/** SPEC: the public WebSocket address ends in `/ws`. */
const webSocketUrl = optionalString.pipe(
  z
    .url({ protocol: /^wss?$/, error: "must be a ws:// or wss:// address" })
    .refine((url) => new URL(url).pathname.replace(/\/+$/, "").endsWith("/ws"), "must end in /ws")
    .optional(),
);

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(5555),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  DATABASE_URL: optionalString,
  /** Embedded database and generated secrets live here when DATABASE_URL is unset. */
  DATA_DIR: z.string().default("data"),
  /** `memory` keeps the embedded database in memory (tests). */
  PGLITE_STORAGE: z.enum(["disk", "memory"]).default("disk"),
  JWT_SECRET: optionalString,
  ADMIN_CODE: optionalString,
  PUBLIC_IDP_APP_ID: optionalString,
  IDP_APP_SECRET: optionalString,
  IDP_JWKS_URL: optionalUrl,
  IDP_VERIFICATION_KEY: optionalString,
  IDP_ISSUER: optionalString,
  PUBLIC_CDN_URL: optionalUrl,
  PUBLIC_API_URL: optionalUrl,
  PUBLIC_WS_URL: webSocketUrl,
  PUBLIC_APP_URL: optionalUrl,
  /** The asset host used to bootstrap a development checkout that has no manifests. */
  PRODUCTION_CDN_URL: z.url().default("https://cdn.tileworld.example"),
  /** Where fetched manifests are cached (production serves from here). */
  MANIFEST_CACHE_DIR: optionalString,
  SKIP_MANIFESTS: flag,
  CI: optionalString,
  SKIP_ASSETS: optionalString,
  REDIS_URL: optionalString,
  /**
   * Behind a proxy or load balancer: how many proxies to trust for the client's address and scheme
   * (X-Forwarded-For / -Proto), which rate limits and /env.js use. 0 trusts none.
   */
  TRUST_PROXY: z.coerce.number().int().min(0).default(0),
  /** This process's address as clients reach it (host:port), when several processes share REDIS_URL. */
  PUBLIC_ADDRESS: optionalString,
  RATE_LIMIT_REST_PER_MIN: positiveInt(100),
  RATE_LIMIT_AUTH_PER_MIN: positiveInt(10),
  RATE_LIMIT_WS_PER_SEC: positiveInt(60),
  /** Length of the REST and authentication rate-limit windows; shortened by tests to see a block end. */
  RATE_LIMIT_WINDOW_MS: positiveInt(60_000),
  /** Frontend origins allowed cross-origin, besides PUBLIC_APP_URL and localhost. */
  CORS_ALLOWED_ORIGINS: list([]),
  /** Host suffixes whose https subdomains are preview deployments (frontend and server hosting). */
  CORS_PREVIEW_HOST_SUFFIXES: list([".vercel.app", ".netlify.app", ".pages.dev", ".colyseus.cloud"]),
  /** Embedding partner sites. */
  CORS_PARTNER_ORIGINS: list(["https://www.crazygames.com", "https://html5.gamedistribution.com"]),
  /** Identity provider domains whose https subdomains may call the API. */
  CORS_IDP_HOST_SUFFIXES: list([".privy.io"]),
  /**
   * A client must send a request's headers within this, and the whole request (its body included)
   * within the next; past either, its connection is answered 408 and closed. Node's own defaults (60 s
   * and 300 s) let a client that sends a byte now and then hold a connection for minutes.
   */
  HTTP_HEADERS_TIMEOUT_MS: positiveInt(20_000),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt(60_000),
  /**
   * Connections one client address may hold open at once (0: no limit). Applied only when the server
   * faces clients itself (TRUST_PROXY=0): behind a proxy every connection comes from the proxy.
   */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).default(256),
  /** Length of the world's tick; RuneScape's 600 ms. Shorter only for tests and load experiments. */
  WORLD_TICK_MS: z.coerce.number().int().min(10).max(5000).default(600),
  /**
   * How a tick's frames reach the sockets (src/net/outbox.ts): `thread`, the writer thread writing to
   * each socket's descriptor (reaches into ws, Colyseus and Node internals); `stream`, each socket's
   * own stream through public APIs only, the way to turn those internals off.
   */
  WRITE_PATH: z.enum(WRITE_PATHS).default("thread"),
  /** How often /ws connections are pinged; one that missed the previous ping is closed as dead. */
  WS_PING_MS: z.coerce.number().int().min(100).default(10_000),
  /** Seconds a dropped player's seat is kept for reconnection. */
  RECONNECT_SECONDS: z.coerce.number().int().min(0).default(30),
  /** Names of agents the server runs from its start, owned by nobody (admins control them). */
  AGENTS: list([]),
  /** How many agents one account may run (POST /api/agents past it is 409 conflict). */
  AGENTS_PER_ACCOUNT: positiveInt(3),
  /**
   * How many agents all accounts together may run (POST /api/agents past it is 409 conflict): each one
   * plays as a client of this process. The agents of AGENTS do not count.
   */
  AGENTS_MAX: positiveInt(100),
});

export type Environment = z.infer<typeof environmentSchema>;

export interface Config extends Environment {
  production: boolean;
  /** An identity provider is configured: tokens come from it, not from anonymous sign-in. */
  identityProvider: boolean;
  dataDir: string;
  manifestCacheDir: string;
  /** The asset and manifest host: PUBLIC_CDN_URL, or SPEC's local one. Published in /env.js too. */
  cdnUrl: string;
}

export class ConfigError extends StartupError {
  override name = "ConfigError";
}

/**
 * Colyseus Cloud names its Redis REDIS_URI and reaches each process only through its NGINX, one proxy
 * hop away: when it runs the server (COLYSEUS_CLOUD is set), those are the defaults of REDIS_URL and
 * TRUST_PROXY. Without the latter every client would share one address, and one rate limit.
 */
function withColyseusCloudDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.COLYSEUS_CLOUD === undefined) return env;
  return { TRUST_PROXY: "1", ...(env.REDIS_URI && { REDIS_URL: env.REDIS_URI }), ...env };
}

/**
 * Reads and validates the environment once; throws a ConfigError naming every problem: the values that
 * are malformed and, in production, the variables that are missing, in one message.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const source = withColyseusCloudDefaults(withoutBlanks(env));
  const parsed = environmentSchema.safeParse(source);
  const missing = source.NODE_ENV?.trim() === "production" ? missingInProduction(source) : [];
  if (!parsed.success || missing.length > 0) {
    const problems: string[] = [];
    if (!parsed.success) {
      const malformed = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
      problems.push(`Invalid configuration:\n  ${malformed.join("\n  ")}`);
    }
    if (missing.length > 0)
      problems.push(
        `Production needs these environment variables, which are not set: ${missing.join(", ")}. ` +
          "Set them (see README.md, Production) or run with NODE_ENV=development.",
      );
    throw new ConfigError(problems.join("\n"));
  }
  const values = parsed.data;
  if (values.HTTP_HEADERS_TIMEOUT_MS > values.HTTP_REQUEST_TIMEOUT_MS)
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${values.HTTP_HEADERS_TIMEOUT_MS}) is longer than HTTP_REQUEST_TIMEOUT_MS ` +
        `(${values.HTTP_REQUEST_TIMEOUT_MS}): the headers are part of the request. Lower the first or raise the second.`,
    );
  const production = values.NODE_ENV === "production";
  const identityProvider = Boolean(
    values.PUBLIC_IDP_APP_ID && (values.IDP_JWKS_URL || values.IDP_VERIFICATION_KEY),
  );

  // Without an expected issuer, a token any other issuer signed for the same application id would pass.
  if (identityProvider && !values.IDP_ISSUER) {
    throw new ConfigError(
      "IDP_ISSUER is not set, but an identity provider is configured (PUBLIC_IDP_APP_ID and " +
        "IDP_JWKS_URL or IDP_VERIFICATION_KEY). Set IDP_ISSUER to the `iss` claim of the provider's " +
        "tokens (see README.md, Configuration), or unset PUBLIC_IDP_APP_ID to run in anonymous mode.",
    );
  }

  const dataDir = path.resolve(values.DATA_DIR);
  return {
    ...values,
    production,
    identityProvider,
    dataDir,
    manifestCacheDir: path.resolve(values.MANIFEST_CACHE_DIR ?? path.join(dataDir, "manifest-cache")),
    cdnUrl: values.PUBLIC_CDN_URL ?? LOCAL_CDN_URL,
  };
}

/** The lists, where an empty value is an empty list: `CORS_PARTNER_ORIGINS=` allows no partner. */
const LISTS = new Set(
  Object.entries(environmentSchema.shape)
    .filter(([, schema]) => listSchemas.has(schema))
    .map(([name]) => name),
);

/** An empty (or blank) value counts as unset, except for the lists: `PORT=` is the default port. */
function withoutBlanks(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => LISTS.has(name) || value?.trim()));
}

/** The production variables `env` leaves unset. */
function missingInProduction(env: NodeJS.ProcessEnv): string[] {
  const isSet = (name: string) => env[name] !== undefined;
  const missing: string[] = REQUIRED_IN_PRODUCTION.filter((name) => !isSet(name));
  if (!isSet("IDP_JWKS_URL") && !isSet("IDP_VERIFICATION_KEY"))
    missing.push("IDP_JWKS_URL or IDP_VERIFICATION_KEY");
  // Production always has a provider, and a provider always needs its issuer (see loadConfig).
  if (!isSet("IDP_ISSUER")) missing.push("IDP_ISSUER");
  return missing;
}
