import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { AgentManager } from "../agents/manager.js";
import { logPlanner, modelPlanners } from "../agents/planners/index.js";
import { AnonymousAccountSweep } from "../auth/account-sweep.js";
import { Sightings, sightingIntervalMs } from "../auth/sightings.js";
import { createTokenVerifier } from "../auth/tokens.js";
import type { Config } from "../config/config.js";
import { StartupError } from "../config/startup-error.js";
import { AccountRepository } from "../db/accounts.js";
import { AgentRepository } from "../db/agents.js";
import { CharacterRepository } from "../db/characters.js";
import { type DatabaseHandle, openDatabase } from "../db/database.js";
import type { ClaimNews } from "../db/server-claim.js";
import { sharedSecret } from "../db/server-secrets.js";
import { TradeRepository } from "../db/trades.js";
import { WorldLeases } from "../db/world-lease.js";
import { WorldStore } from "../db/world-store.js";
import { capConnectionsPerAddress } from "../limits/connection-cap.js";
import { FloodGuards } from "../limits/flood-guard.js";
import { createRateLimits } from "../limits/rate-limits.js";
import { createOutbox } from "../net/outbox.js";
import type { Runtime } from "../ports/runtime.js";
import { LocalWorldHealth } from "../ports/world-health.js";
import { WorldSeats } from "../ports/world-seats.js";
import type { Logger } from "../telemetry/logger.js";
import { agentSettings } from "./agent-settings.js";
import { loadConfiguredGameData } from "./game-data.js";
import { trackSockets } from "./open-sockets.js";
import { answerParserRefusalsInJson } from "./parser-refusals.js";
import { reachRedis } from "./redis-reach.js";

export async function createRuntime(config: Config, logger: Logger): Promise<Runtime> {
  checkWritableFolders(config);
  if (config.REDIS_URL) await reachRedis(config.REDIS_URL);
  const manifests = await loadConfiguredGameData(config, logger);
  const started = Date.now();
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.PGLITE_STORAGE === "disk" ? path.join(config.dataDir, "pglite") : undefined,
    timeouts: {
      statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      queryMs: config.DATABASE_QUERY_TIMEOUT_MS,
      keepAliveMs: config.DATABASE_KEEPALIVE_MS,
    },
    // Alone, a process runs the worlds by itself; with Redis, processes run them together.
    claim: config.REDIS_URL ? "shared" : "alone",
    onClaimNews: (news) => logClaimNews(news, logger),
  });
  logger.info(
    { database: database.kind, ms: Date.now() - started },
    `database ready (${database.kind === "postgres" ? "PostgreSQL" : "embedded PGlite"}, migrations applied)`,
  );
  if (config.PUBLIC_IDP_APP_ID && !config.identityProvider)
    logger.warn(
      "PUBLIC_IDP_APP_ID is set without IDP_JWKS_URL or IDP_VERIFICATION_KEY: the server cannot check the " +
        "provider's tokens, so it runs in anonymous mode and refuses them. Set one of the two to use the provider.",
    );
  const jwtSecret = await resolveJwtSecret(config, database, logger);
  logChosenPublicAddress(config, logger);
  const rateLimits = createRateLimits(config, logger);
  const accounts = new AccountRepository(database.db);
  const characters = new CharacterRepository(database.db);
  const models = modelPlanners(config);
  // With an agent process, its own variables choose its agents' planner, and it says which.
  if (config.AGENT_FRAMEWORK_URL)
    logger.info(`agents run in the agent process at ${config.AGENT_FRAMEWORK_URL}`);
  else logPlanner(models, logger);
  const agentRows = new AgentRepository(database.db);
  const sightingMs = sightingIntervalMs(config.AGENT_OWNER_ABSENCE_SECONDS);
  const outbox = createOutbox(config.WRITE_PATH);
  const accountSweep = new AnonymousAccountSweep(
    accounts,
    config.ANONYMOUS_ACCOUNT_RETENTION_SECONDS,
    logger,
  );
  accountSweep.start();
  return {
    config,
    logger,
    database,
    accounts,
    sightings: new Sightings(accounts, sightingMs, logger),
    characters,
    agents: new AgentManager({
      agents: agentRows,
      gameData: manifests.data,
      jwtSecret,
      logger,
      ...agentSettings(config),
      model: models?.create,
    }),
    worldStore: new WorldStore(database.worldDb),
    worldTrades: new TradeRepository(database.worldDb),
    trades: new TradeRepository(database.db),
    worldLeases: new WorldLeases(database.worldDb, database.db),
    gameData: manifests.data,
    manifestDir: manifests.dir,
    jwtSecret,
    // Agents an agent process runs (AGENT_FRAMEWORK_URL) are stored there, not here: their tokens, signed
    // with the JWT_SECRET both processes share, are taken as they come.
    tokens: createTokenVerifier(config, jwtSecret, {
      agentExists: config.AGENT_FRAMEWORK_URL ? undefined : (id) => agentRows.exists(id),
    }),
    rateLimits,
    floodGuards: new FloodGuards(config.RATE_LIMIT_WS_PER_SEC),
    worldHealth: new LocalWorldHealth(),
    worldSeats: new WorldSeats(),
    httpServer: createHttpServer(config, logger),
    outbox,
    close: async () => {
      await accountSweep.stop();
      await outbox.close();
      await rateLimits.close();
      await database.close();
    },
  };
}

/**
 * The HTTP server with the configured request timeouts and connection limit. Node checks the timeouts
 * every 30 s by default, which would let a slow client overstay them by as much; a second is close
 * enough and cheap (upgraded WebSocket connections are not checked).
 */
function createHttpServer(config: Config, logger: Logger): http.Server {
  const server = http.createServer({
    headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(1000, config.HTTP_HEADERS_TIMEOUT_MS),
  });
  if (config.TRUST_PROXY === 0 && config.MAX_CONNECTIONS_PER_ADDRESS > 0)
    capConnectionsPerAddress(server, config.MAX_CONNECTIONS_PER_ADDRESS, logger);
  trackSockets(server);
  answerParserRefusalsInJson(server);
  return server;
}

/**
 * JWT_SECRET when set (always in production); otherwise a development secret kept in the database, so
 * that tokens survive restarts and every process on the same database signs and checks with the same
 * key (each with a secret of its own, a /ws connection one process relays to another is refused). A
 * secret an earlier version kept in DATA_DIR/jwt-secret is taken over, so its tokens stay valid.
 */
async function resolveJwtSecret(
  config: Config,
  database: DatabaseHandle,
  logger: Logger,
): Promise<Uint8Array> {
  if (config.JWT_SECRET) return new TextEncoder().encode(config.JWT_SECRET);
  const earlier = path.join(config.dataDir, "jwt-secret");
  const candidate = () =>
    config.PGLITE_STORAGE === "disk" && existsSync(earlier)
      ? readFileSync(earlier, "utf8").trim()
      : randomBytes(32).toString("base64");
  const { value, created } = await sharedSecret(database.db, "jwt", candidate);
  logger.info(
    created
      ? "JWT_SECRET is not set: generated a development secret, kept in the database for every process on it"
      : "JWT_SECRET is not set: using the development secret kept in the database, shared by every process on it",
  );
  return Buffer.from(value, "base64");
}

/** Says which PUBLIC_ADDRESS this process took when none was set (see loadConfig). */
function logChosenPublicAddress(config: Config, logger: Logger): void {
  if (!config.publicAddressChosen) return;
  logger.info(
    { publicAddress: config.PUBLIC_ADDRESS },
    `PUBLIC_ADDRESS is not set: other processes on REDIS_URL reach this one at ${config.PUBLIC_ADDRESS} ` +
      "(this host's name and port). Set PUBLIC_ADDRESS if they cannot reach it there.",
  );
}

/**
 * The folders the server writes before it can serve, checked first so that a folder it cannot write
 * stops it with the variable to change rather than a file system error's stack trace.
 */
function checkWritableFolders(config: Config): void {
  const onDisk = config.PGLITE_STORAGE === "disk";
  if (onDisk && !config.DATABASE_URL) writable(config.dataDir, "DATA_DIR");
  if (!config.SKIP_MANIFESTS)
    writable(config.manifestCacheDir, config.MANIFEST_CACHE_DIR ? "MANIFEST_CACHE_DIR" : "DATA_DIR");
}

function writable(dir: string, variable: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new StartupError(
      `${variable}: the server cannot write to ${dir} (${(error as Error).message}). ` +
        `Make it a folder the server's user may write to, or set ${variable} to one.`,
      { cause: error },
    );
  }
}

/** What became of the process's claim on the PostgreSQL database after its connection dropped. */
function logClaimNews(news: ClaimNews, logger: Logger): void {
  if (news === "lost")
    logger.warn(
      "the connection holding this process's claim on DATABASE_URL dropped: taking the claim again",
    );
  else if (news === "retaken") logger.info("the claim on DATABASE_URL is taken again");
  else
    logger.error(
      "while this process's claim on DATABASE_URL was lost, a server process that may not share the database " +
        "with it took it (one without REDIS_URL, or this one being without it): their worlds will keep " +
        "closing each other's. Stop one of them, or give both the same REDIS_URL.",
    );
}
