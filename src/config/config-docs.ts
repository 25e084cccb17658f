// What each variable of src/config/config.ts means, for .env.example and docs/configuration.md, which
// `npm run env:example` generates from this and the schema's defaults. A variable added to the schema
// needs its line here: test/config-docs.test.ts names any that has none.
import type { Environment } from "./config.js";

export interface VariableDoc {
  /** One or two sentences for an operator. */
  meaning: string;
  /** The default as people read it, where the schema's own default does not say it (derived, generated). */
  shownDefault?: string;
}

export const VARIABLE_DOCS = {
  PORT: { meaning: "HTTP and WebSocket port." },
  NODE_ENV: { meaning: "`development` or `production` (`test` is used by the test suite)." },
  LOG_LEVEL: {
    meaning: "pino log level (`silent` in tests); `debug` adds a line per HTTP request.",
    shownDefault: "`info`",
  },
  LOG_FORMAT: {
    meaning: "`pretty`: a timed line for people; `json`: one JSON object a line, for log collectors.",
    shownDefault: "`pretty` in development, else `json`",
  },
  DATABASE_URL: {
    meaning:
      "PostgreSQL connection string (`postgres://` or `postgresql://`). Unset: embedded PGlite in `DATA_DIR/pglite`. Without `REDIS_URL`, one server process per database: a second stops at start-up.",
  },
  DATA_DIR: { meaning: "Embedded database, manifest cache." },
  PGLITE_STORAGE: { meaning: "`memory` keeps the embedded database in memory (tests)." },
  JWT_SECRET: {
    meaning:
      "Key of the server's own tokens (anonymous mode). Unset in development: generated once, kept in the database for all its processes. The agent process (`npm run agents`) needs it set, in development too, to the game server's.",
    shownDefault: "generated",
  },
  ADMIN_CODE: {
    meaning:
      "Code for the `/admin` chat command; unset disables it. Also the basic-auth password of `/monitor` and `/playground` (unset: served in development only, to the machine's own pages).",
  },
  PUBLIC_IDP_APP_ID: {
    meaning: "Public application id of the identity provider; the audience of its tokens.",
  },
  IDP_APP_SECRET: {
    meaning:
      "Secret of the identity-provider application: required in production, not used by the server; never sent to clients.",
  },
  IDP_JWKS_URL: { meaning: "Key set of the identity provider (cached, refetched on an unknown key id)." },
  IDP_VERIFICATION_KEY: { meaning: "Alternative to `IDP_JWKS_URL`: a PEM or JWK public key." },
  IDP_ISSUER: {
    meaning:
      "Expected `iss` of provider tokens; required with an identity provider (start-up fails without it).",
  },
  PUBLIC_CDN_URL: {
    meaning:
      "Asset and manifest host: manifests are fetched from it (in development, only those missing locally); `/env.js` sends clients there.",
    shownDefault: "`http://localhost:8080`",
  },
  PUBLIC_API_URL: {
    meaning: "Public HTTP address of this server, published in `/env.js`.",
    shownDefault: "derived from the request",
  },
  PUBLIC_WS_URL: {
    meaning: "Public WebSocket address, published in `/env.js`: `ws://` or `wss://`, ending in `/ws`.",
    shownDefault: "derived from the request",
  },
  PUBLIC_APP_URL: { meaning: "Frontend address, added to the cross-origin allow-list." },
  PRODUCTION_CDN_URL: { meaning: "Asset host used to bootstrap a checkout without manifests." },
  MANIFEST_CACHE_DIR: {
    meaning:
      "Production's copy of the fetched manifests; in development, the last valid copy of `./manifests`, used when those are invalid.",
    shownDefault: "`DATA_DIR/manifest-cache`",
  },
  SKIP_MANIFESTS: { meaning: "Bypass manifest fetching and validation (test environments)." },
  CI: {
    meaning: "Accepted for compatibility; the build (`tsc`) downloads no assets, so it changes nothing.",
  },
  SKIP_ASSETS: { meaning: "Accepted for compatibility, as `CI`: it changes nothing." },
  REDIS_URL: {
    meaning:
      "Scale-out: Colyseus presence and driver, and rate-limit counters, in Redis. Checked at start-up: a Redis that does not answer within 5 s stops the server, naming it.",
    shownDefault: "unset (Colyseus Cloud: its `REDIS_URI`)",
  },
  TRUST_PROXY: {
    meaning:
      "Proxies in front of the server to trust for the client's address and scheme (rate limits, `/env.js`).",
    shownDefault: "`0` (Colyseus Cloud: `1`)",
  },
  PUBLIC_ADDRESS: {
    meaning:
      "With `REDIS_URL`: this process's `host:port` as the others reach it (not published in `/env.js`); required in production, else this host's name and `PORT`. `{port}` in it stands for the port the process listens on (`PORT` plus pm2's instance number): `10.0.0.5:{port}` gives each pm2 instance its own, which they need.",
    shownDefault: "this host and `PORT` (development)",
  },
  RATE_LIMIT_REST_PER_MIN: {
    meaning: "REST requests per minute per client, the SDK's seat requests (`/matchmake`) included.",
  },
  RATE_LIMIT_AUTH_PER_MIN: { meaning: "Authentication attempts per minute per client." },
  RATE_LIMIT_WS_PER_SEC: { meaning: "WebSocket messages per second per player, over all its connections." },
  RATE_LIMIT_CHAT_PER_SEC: {
    meaning:
      "Chat lines a player may say in any one second (within the message limit); one more is `error` `rate_limited` to its sender alone.",
  },
  RATE_LIMIT_WINDOW_MS: { meaning: "Length of the REST and authentication windows." },
  CORS_ALLOWED_ORIGINS: {
    meaning:
      "Frontend origins allowed cross-origin (comma-separated), each as a browser sends it: `https://app.example.com`, no path or wildcard.",
  },
  CORS_PREVIEW_HOST_SUFFIXES: { meaning: "`https` subdomains treated as preview deployments." },
  CORS_PARTNER_ORIGINS: { meaning: "Embedding partner sites' origins, written as those above." },
  CORS_IDP_HOST_SUFFIXES: { meaning: "`https` subdomains of the identity provider." },
  HTTP_HEADERS_TIMEOUT_MS: {
    meaning: "A client must send a request's headers within this, or is answered 408 and disconnected.",
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    meaning:
      "The same for the whole request, its body included (not less than the headers timeout). An open WebSocket is not timed.",
  },
  MAX_CONNECTIONS_PER_ADDRESS: {
    meaning:
      "Connections one client address may hold open at once, when `TRUST_PROXY` is `0`; `0` for no limit.",
  },
  WRITE_PATH: {
    meaning:
      "How a tick's frames reach the sockets: `thread` (the writer thread, reaching into library internals) or `stream` (public APIs only).",
  },
  WORLD_SEED: {
    meaning:
      "Seed of the world's dice (combat, gathering, drops): set, runs repeat (`npm run agents:exam`); unset, a new one each opening.",
  },
  VIEW_MAX_PLAYERS: {
    meaning:
      "The most other players a client is shown: once more stand in its view, the nearest ones (its own always). NPCs, items and resources are not capped.",
  },
  WORLDS: {
    meaning:
      "How many numbered worlds (1..`WORLDS`) the deployment runs, spread over its processes: each has its own players, ground items and lease. The same in every process.",
  },
  WORLD_CAPACITY: {
    meaning:
      "Players one world admits: a full world refuses new logins, and a client that names no world is put in the least full one.",
  },
  WORLD_TICK_MS: { meaning: "The world's tick. Shorter only for tests and load experiments." },
  WS_PING_MS: {
    meaning:
      "How often `/ws` connections, and the world processes they are relayed to, are pinged; one that missed the previous ping is closed as dead.",
  },
  RECONNECT_SECONDS: { meaning: "How long a dropped player's seat is kept." },
  WS_LOGIN_MAX_STALL_MS: {
    meaning:
      "A `/ws` login that waited longer than this while its process stood still (stopped, paused) is refused with 503 when the process resumes.",
  },
  FORGET_FAILED_ROOM_LOOKUPS: {
    meaning:
      "Makes `@colyseus/redis-driver` forget a room lookup that failed while Redis was away (it would hand it to every later lookup); `false` only once the driver does so itself.",
  },
  DATABASE_STATEMENT_TIMEOUT_MS: {
    meaning: "PostgreSQL cancels a statement that runs longer (`statement_timeout`).",
  },
  DATABASE_QUERY_TIMEOUT_MS: {
    meaning:
      "A query PostgreSQL has not answered within this fails and its connection is closed (longer than the statement timeout).",
  },
  DATABASE_KEEPALIVE_MS: {
    meaning: "Idle time after which TCP keepalive probes check a PostgreSQL connection.",
  },
  AGENTS: {
    meaning:
      "Names of agents the server runs from its start (comma-separated), owned by nobody: admin accounts control them.",
  },
  AGENTS_PER_ACCOUNT: { meaning: "How many agents one account may run." },
  AGENTS_MAX: { meaning: "How many agents all accounts together may run (those of `AGENTS` aside)." },
  AGENTS_PER_ADDRESS: {
    meaning:
      "How many agents may be started from one client address, whichever accounts ask (`409 conflict` past it).",
  },
  AGENT_OWNER_ABSENCE_SECONDS: {
    meaning:
      "An agent of an anonymous account is removed once its owner has not been seen for this long, which frees its slot.",
  },
  ANONYMOUS_ACCOUNT_RETENTION_SECONDS: {
    meaning:
      "An anonymous account not seen for this long (and owning no agent) is deleted with its character; `0` keeps them all. At least 7200: its token lives an hour. The default is as long as its renewal token lives (30 days): a player back within it plays the same character; a renewal token of a deleted account signs in a new one.",
  },
  AGENT_PORT: { meaning: "The agent process (`npm run agents`) serves `/api/agents` on this port." },
  GAME_SERVER_URL: {
    meaning:
      "The game server the agent process plays on and asks who its callers are. A production agent process needs it and JWT_SECRET, and nothing the game server needs.",
  },
  AGENT_FRAMEWORK_URL: {
    meaning:
      "Set on the game server: `/api/agents` is forwarded to the agent process there, and the server runs no agents.",
  },
  AGENT_STORE_FILE: {
    meaning: "The agent process's own store of its agents.",
    shownDefault: "`<DATA_DIR>/agents.json`",
  },
  OPENAI_API_KEY: { meaning: "OpenAI's key: agents may be driven by its models." },
  OPENAI_BASE_URL: {
    meaning: "Another address of OpenAI's chat-completions API (a gateway).",
    shownDefault: "OpenAI's",
  },
  ANTHROPIC_API_KEY: { meaning: "Anthropic's key: agents may be driven by its models." },
  ANTHROPIC_BASE_URL: {
    meaning: "Another address of Anthropic's messages API.",
    shownDefault: "Anthropic's",
  },
  GOOGLE_GENERATIVE_AI_API_KEY: { meaning: "Google's key (Generative Language API)." },
  GOOGLE_GENERATIVE_AI_BASE_URL: {
    meaning: "Another address of Google's Generative Language API.",
    shownDefault: "Google's",
  },
  LOCAL_MODEL_URL: { meaning: "An OpenAI-compatible model host, e.g. `http://localhost:11434/v1`; no key." },
  AGENT_MODEL: {
    meaning:
      "`openai:<model>`, `anthropic:<model>`, `google:<model>` or `local:<model>`; none configured: the rules decide.",
    shownDefault: "first configured",
  },
  AGENT_MODEL_CALLS_PER_MIN: {
    meaning: "Model calls one agent may make a minute; past them, that decision is the rules'.",
  },
  AGENT_MODEL_MAX_TOKENS: { meaning: "Most tokens a model may answer with in one call (100,000 at most)." },
  AGENT_MODEL_TIMEOUT_MS: {
    meaning:
      "A model call that takes longer is given up; that decision is the rules'. 10 minutes (600000) at most.",
  },
  METRICS_TOKEN: {
    meaning:
      "In production, `GET /metrics` needs `Authorization: Bearer <METRICS_TOKEN>` (at least 12 characters; a wrong one counts as an authentication attempt); unset, it answers 404. Open in development.",
  },
} satisfies Partial<Record<keyof Environment, VariableDoc>>;
