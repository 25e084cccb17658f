import path from "node:path";
import { z } from "zod";
import { CHARACTER_NAME, CHARACTER_NAME_RULE } from "../game/character-names.js";
import type { LogFormat } from "../telemetry/logger.js";
import { type ProcessRole, productionProblems } from "./production.js";
import { publicAddressOf } from "./public-address.js";
import {
  flag,
  flagOn,
  httpUrl,
  isListSchema,
  list,
  optionalString,
  optionalUrl,
  originList,
  positiveInt,
  timerMs,
  webSocketUrl,
} from "./setting-schemas.js";
import { StartupError } from "./startup-error.js";
import { WRITE_PATHS } from "./write-path.js";

/** The asset host listens on port 8080 in local development. */
export const LOCAL_CDN_URL = "http://localhost:8080";

/** The most numbered worlds a deployment may run (WORLDS). */
export const MOST_WORLDS = 100;

export const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(5555),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  /** `pretty` lines for people, or `json` lines for log collectors; by default pretty in development only. */
  LOG_FORMAT: z.enum(["pretty", "json"]).optional(),
  DATABASE_URL: optionalString.pipe(
    z
      .url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// address" })
      .optional(),
  ),
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
   * Forgets a room lookup of @colyseus/redis-driver that failed while Redis was away, which the driver
   * would hand to every later lookup (src/server/redis-driver-lookups.ts). Off only once the driver does it itself.
   */
  FORGET_FAILED_ROOM_LOOKUPS: flagOn,
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
  RATE_LIMIT_WINDOW_MS: timerMs(60_000),
  /** Frontend origins allowed cross-origin, besides PUBLIC_APP_URL and localhost. */
  CORS_ALLOWED_ORIGINS: originList([]),
  /** Host suffixes whose https subdomains are preview deployments (frontend and server hosting). */
  CORS_PREVIEW_HOST_SUFFIXES: list([".vercel.app", ".netlify.app", ".pages.dev", ".colyseus.cloud"]),
  /** Embedding partner sites. */
  CORS_PARTNER_ORIGINS: originList(["https://www.crazygames.com", "https://html5.gamedistribution.com"]),
  /** Identity provider domains whose https subdomains may call the API. */
  CORS_IDP_HOST_SUFFIXES: list([".privy.io"]),
  /**
   * A client must send a request's headers within this, and the whole request (its body included)
   * within the next; past either, its connection is answered 408 and closed. Node's own defaults (60 s
   * and 300 s) let a client that sends a byte now and then hold a connection for minutes.
   */
  HTTP_HEADERS_TIMEOUT_MS: timerMs(20_000),
  HTTP_REQUEST_TIMEOUT_MS: timerMs(60_000),
  /**
   * Connections one client address may hold open at once (0: no limit). Applied only when the server
   * faces clients itself (TRUST_PROXY=0): behind a proxy every connection comes from the proxy.
   */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).default(256),
  /**
   * The most other players a client is shown: the nearest ones, once more stand in its view (RuneScape's
   * protocol caps its local players at 255). NPCs, items and resources are not capped.
   */
  VIEW_MAX_PLAYERS: z.coerce.number().int().min(1).max(2000).default(255),
  /**
   * How many numbered worlds (WorldRooms, ids 1..WORLDS) the deployment runs, spread over its processes;
   * each has its own players, ground items and lease. Every process of a deployment must set the same.
   */
  WORLDS: z.coerce.number().int().min(1).max(MOST_WORLDS).default(1),
  /** Players a world admits: a full world refuses new logins, and a client that names none goes elsewhere. */
  WORLD_CAPACITY: z.coerce.number().int().min(1).default(2000),
  /** Length of the world's tick; RuneScape's 600 ms. Shorter only for tests and load experiments. */
  WORLD_TICK_MS: z.coerce.number().int().min(10).max(5000).default(600),
  /**
   * How a tick's frames reach the sockets (src/net/outbox.ts): `thread`, the writer thread writing to
   * each socket's descriptor (reaches into ws, Colyseus and Node internals); `stream`, each socket's
   * own stream through public APIs only, the way to turn those internals off.
   */
  WRITE_PATH: z.enum(WRITE_PATHS).default("thread"),
  /** Seed of the world's dice (combat, gathering, drops); unset, each opening rolls a new one. For repeatable runs. */
  WORLD_SEED: z.coerce.number().int().min(0).optional(),
  /** How often /ws connections are pinged; one that missed the previous ping is closed as dead. */
  WS_PING_MS: timerMs(10_000, 100),
  /** PostgreSQL cancels a statement that runs longer than this (statement_timeout). */
  DATABASE_STATEMENT_TIMEOUT_MS: timerMs(5000),
  /**
   * A query PostgreSQL has not answered within this has its connection closed and fails: a connection
   * that went silent (a failover, lost NAT or firewall state) would otherwise hold it some 15 minutes.
   * A world write that fails so is tried again, on a new connection, by the next tick.
   */
  DATABASE_QUERY_TIMEOUT_MS: timerMs(10_000),
  /** Idle time after which TCP keepalive probes check a PostgreSQL connection. */
  DATABASE_KEEPALIVE_MS: timerMs(10_000),
  /**
   * A /ws login that waited longer than this while its process stood still (stopped, paused) is refused
   * with 503 when the process resumes: its client has given up by then (a relaying process after 5 s),
   * and carried out it would replace the session the player opened since elsewhere.
   */
  WS_LOGIN_MAX_STALL_MS: timerMs(4000),
  /** Seconds a dropped player's seat is kept for reconnection. */
  RECONNECT_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(2_147_483, "must be at most 2147483 s (about 24.8 days), the longest timer Node keeps")
    .default(30),
  /** Names of agents the server runs from its start, owned by nobody (admins control them). */
  AGENTS: list([]),
  /** How many agents one account may run (POST /api/agents past it is 409 conflict). */
  AGENTS_PER_ACCOUNT: positiveInt(3),
  /**
   * How many agents all accounts together may run (POST /api/agents past it is 409 conflict): each one
   * plays as a client of this process. The agents of AGENTS do not count.
   */
  AGENTS_MAX: positiveInt(100),

  // The agent framework as a process of its own (`npm run agents`), and the game server's way to it.
  /** Port the agent process (`npm run agents`) serves the /api/agents endpoints on. */
  AGENT_PORT: positiveInt(4001),
  /** The game server the agent process plays on, as an ordinary client, and asks who a caller is. */
  GAME_SERVER_URL: httpUrl.default("http://localhost:5555"),
  /** Set on the game server: its /api/agents requests go to the agent process there; unset, it runs the agents itself. */
  AGENT_FRAMEWORK_URL: optionalUrl,
  /** The agent process's own store of its agents (a JSON file); default `<DATA_DIR>/agents.json`. */
  AGENT_STORE_FILE: optionalString,

  // Language models that can drive the agents (three providers and a local host). With none
  // configured the agents decide by their rules. Keys are read here and handed to the model client only.
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalUrl,
  GOOGLE_GENERATIVE_AI_API_KEY: optionalString,
  GOOGLE_GENERATIVE_AI_BASE_URL: optionalUrl,
  /** An OpenAI-compatible host's address, e.g. a local model host's `http://localhost:11434/v1`; no key. */
  LOCAL_MODEL_URL: optionalUrl,
  /** `openai:<model>`, `anthropic:<model>`, `google:<model>` or `local:<model>`; unset, the first configured. */
  AGENT_MODEL: optionalString.pipe(
    z
      .string()
      .regex(
        /^(openai|anthropic|google|local):\S+$/,
        "must be openai:<model>, anthropic:<model>, google:<model> or local:<model>",
      )
      .optional(),
  ),
  /** Model calls one agent may make a minute; past it, that decision is the rules'. */
  AGENT_MODEL_CALLS_PER_MIN: positiveInt(6),
  /** Most tokens a model may answer with in one call (no provider takes more than 100,000). */
  AGENT_MODEL_MAX_TOKENS: positiveInt(512).pipe(z.number().max(100_000)),
  /** A model call that takes longer is given up, and that decision is the rules'; 10 minutes at most. */
  AGENT_MODEL_TIMEOUT_MS: positiveInt(20_000).pipe(z.number().max(600_000)),

  /** In production, GET /metrics answers only `Authorization: Bearer <METRICS_TOKEN>`; unset, it is not there. */
  METRICS_TOKEN: optionalString,

  // Abuse resistance: shared resources one party could use up.
  /**
   * How many agents may be started from one client address, whichever accounts ask (POST /api/agents
   * past it is 409 conflict): throwaway accounts do not multiply a client's share of AGENTS_MAX.
   */
  AGENTS_PER_ADDRESS: positiveInt(10),
  /**
   * An agent of an anonymous account is removed once its owner has not been seen (no authenticated
   * request or connection, no player connected to the world) for this long, which frees its slot.
   */
  AGENT_OWNER_ABSENCE_SECONDS: positiveInt(3600),
  /**
   * An anonymous account not seen for this long is deleted with its character; 0 keeps them all. By
   * default as long as its renewal token lives (30 days, src/auth/tokens.ts): a player back within it
   * plays the same character.
   */
  ANONYMOUS_ACCOUNT_RETENTION_SECONDS: z.coerce
    .number()
    .int()
    .refine((seconds) => seconds === 0 || seconds >= 7200, {
      message: "must be 0 (keep them all) or at least 7200 (2 h): an anonymous token lives an hour",
    })
    .default(30 * 24 * 60 * 60),

  // Abuse limits (chat rate).
  /**
   * Chat lines one player may say in any one second, within the message limit: each goes to everyone in
   * view, so the message limit alone lets a few players flood their neighbours' connections.
   */
  RATE_LIMIT_CHAT_PER_SEC: positiveInt(2),
});

export type Environment = z.infer<typeof environmentSchema>;

export interface Config extends Environment {
  production: boolean;
  /** An identity provider is configured: tokens come from it, not from anonymous sign-in. */
  identityProvider: boolean;
  dataDir: string;
  manifestCacheDir: string;
  /** The asset and manifest host: PUBLIC_CDN_URL, or the interface's local one. Published in /env.js too. */
  cdnUrl: string;
  logFormat: LogFormat;
  /** PUBLIC_ADDRESS was not set and this process chose it (see defaultPublicAddress). */
  publicAddressChosen: boolean;
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
export function loadConfig(env: NodeJS.ProcessEnv = process.env, role: ProcessRole = "game"): Config {
  const source = withColyseusCloudDefaults(withoutBlanks(env));
  const parsed = environmentSchema.safeParse(source);
  const { missing, weak } =
    source.NODE_ENV?.trim() === "production" ? productionProblems(source, role) : { missing: [], weak: [] };
  if (!parsed.success || missing.length > 0 || weak.length > 0) {
    const problems: string[] = [];
    if (!parsed.success) {
      const malformed = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
      problems.push(`Invalid configuration:\n  ${malformed.join("\n  ")}`);
    }
    if (missing.length > 0)
      problems.push(
        `Production needs these environment variables, which are not set: ${missing.join(", ")}. ` +
          "Set them (see docs/configuration.md and docs/deploying.md) or run with NODE_ENV=development.",
      );
    if (weak.length > 0)
      problems.push(
        `Production refuses secrets that can be guessed: ${weak.join("; ")}. ` +
          "Set longer random values (e.g. `openssl rand -base64 48`).",
      );
    throw new ConfigError(problems.join("\n"));
  }
  const values = parsed.data;
  if (values.HTTP_HEADERS_TIMEOUT_MS > values.HTTP_REQUEST_TIMEOUT_MS)
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${values.HTTP_HEADERS_TIMEOUT_MS}) is longer than HTTP_REQUEST_TIMEOUT_MS ` +
        `(${values.HTTP_REQUEST_TIMEOUT_MS}): the headers are part of the request. Lower the first or raise the second.`,
    );
  if (values.DATABASE_STATEMENT_TIMEOUT_MS >= values.DATABASE_QUERY_TIMEOUT_MS)
    throw new ConfigError(
      `DATABASE_STATEMENT_TIMEOUT_MS (${values.DATABASE_STATEMENT_TIMEOUT_MS}) is not shorter than ` +
        `DATABASE_QUERY_TIMEOUT_MS (${values.DATABASE_QUERY_TIMEOUT_MS}): a slow statement would have its ` +
        "connection closed before PostgreSQL cancels it. Lower the first or raise the second.",
    );
  // The configured agents' characters keep the one name rule of players' and agents' characters.
  const badNames = values.AGENTS.filter((name) => !CHARACTER_NAME.test(name));
  if (badNames.length > 0)
    throw new ConfigError(
      `AGENTS names ${badNames.map((name) => `"${name}"`).join(", ")}, which a character cannot be called ` +
        `(${CHARACTER_NAME_RULE}). Rename them in AGENTS.`,
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
        "tokens (see docs/configuration.md), or unset PUBLIC_IDP_APP_ID to run in anonymous mode.",
    );
  }

  const modelProblem = agentModelProblem(values);
  if (modelProblem) throw new ConfigError(modelProblem);

  const dataDir = path.resolve(values.DATA_DIR);
  const { publicAddress, problem: addressProblem } = publicAddressOf(values, source);
  if (addressProblem) throw new ConfigError(addressProblem);
  return {
    ...values,
    PUBLIC_ADDRESS: publicAddress,
    publicAddressChosen: values.PUBLIC_ADDRESS === undefined && publicAddress !== undefined,
    production,
    identityProvider,
    dataDir,
    manifestCacheDir: path.resolve(values.MANIFEST_CACHE_DIR ?? path.join(dataDir, "manifest-cache")),
    cdnUrl: values.PUBLIC_CDN_URL ?? LOCAL_CDN_URL,
    logFormat: values.LOG_FORMAT ?? (values.NODE_ENV === "development" ? "pretty" : "json"),
  };
}

/** Why AGENT_MODEL cannot be used: it names a provider whose key (or address) is not set. */
function agentModelProblem(values: Environment): string | undefined {
  const provider = values.AGENT_MODEL?.split(":")[0];
  const needs: Record<string, keyof Environment> = {
    openai: "OPENAI_API_KEY",
    anthropic: "ANTHROPIC_API_KEY",
    google: "GOOGLE_GENERATIVE_AI_API_KEY",
    local: "LOCAL_MODEL_URL",
  };
  const variable = provider && needs[provider];
  if (!variable || values[variable] !== undefined) return undefined;
  return `AGENT_MODEL is ${values.AGENT_MODEL}, but ${variable} is not set. Set ${variable}, or choose a configured provider in AGENT_MODEL (or unset it: the first configured is used, the rules if none is).`;
}

/** The lists, where an empty value is an empty list: `CORS_PARTNER_ORIGINS=` allows no partner. */
const LISTS = new Set(
  Object.entries(environmentSchema.shape)
    .filter(([, schema]) => isListSchema(schema))
    .map(([name]) => name),
);

/** An empty (or blank) value counts as unset, except for the lists: `PORT=` is the default port. */
function withoutBlanks(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => LISTS.has(name) || value?.trim()));
}
