// The interface's REST and authentication limits. Counters live in memory, or in Redis when REDIS_URL is set so
// that every process behind one address shares them. A client over a limit is blocked until its window ends.
import type { RequestHandler } from "express";
import { ipKeyGenerator, MemoryStore, rateLimit, type Store } from "express-rate-limit";
import { Redis } from "ioredis";
import { type RedisReply, RedisStore } from "rate-limit-redis";
import type { Config } from "../config/config.js";
import { ServiceError } from "../protocol/errors.js";
import type { Logger } from "../telemetry/logger.js";
import { PassingStore } from "./passing-store.js";

export interface AttemptResult {
  limited: boolean;
  retryAfterSeconds: number;
}

/** A limit's counters, for requests that Express's middleware does not see. */
export interface AttemptCounter {
  /** Counts one attempt of the client `key` and says whether it is over the limit. */
  hit(key: string): Promise<AttemptResult>;
  /** Whether the client `key` is over the limit now, counting nothing. */
  peek(key: string): Promise<AttemptResult>;
}

export interface RateLimits {
  /** Every request under /api, per client. */
  rest: RequestHandler;
  /** The REST limit's counters, for the requests Colyseus answers outside Express: its matchmaker's. */
  restRequests: AttemptCounter;
  /** Token issuance: one authentication attempt per request. */
  tokenIssuance: RequestHandler;
  /** Attempts counted outside the issuance route: failed token verifications, wrong `/admin` codes. */
  authAttempts: AttemptCounter;
  close(): Promise<void>;
}

type LimitsConfig = Pick<
  Config,
  "RATE_LIMIT_REST_PER_MIN" | "RATE_LIMIT_AUTH_PER_MIN" | "RATE_LIMIT_WINDOW_MS" | "REDIS_URL"
>;

const DEFAULT_KEY_PREFIX = "tileworld:rate-limit:";

/** How long the first counts wait for the connection to Redis being made, before passing uncounted. */
const FIRST_CONNECTION_WAIT_MS = 1000;

/**
 * Resolves once Redis is first ready, or after FIRST_CONNECTION_WAIT_MS: without the offline queue, the
 * counts made while the connection is still being made would fail, and pass uncounted, as in an outage.
 */
function firstConnection(redis: Redis): Promise<void> {
  return new Promise((resolve) => {
    const waited = setTimeout(resolve, FIRST_CONNECTION_WAIT_MS).unref();
    redis.once("ready", () => {
      clearTimeout(waited);
      resolve();
    });
  });
}

/** The counter key of a client address; IPv6 addresses are grouped by /56 like express-rate-limit does. */
export function clientKey(ip: string | undefined): string {
  return ipKeyGenerator(ip ?? "unknown");
}

export function createRateLimits(
  config: LimitsConfig,
  logger: Logger,
  keyPrefix = DEFAULT_KEY_PREFIX,
): RateLimits {
  // Without the offline queue, a count fails at once while Redis is away instead of waiting for it.
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { enableOfflineQueue: false }) : undefined;
  // ioredis reports each failed reconnection as an error event; PassingStore reports the outage once.
  redis?.on("error", () => {});
  const connected = redis && firstConnection(redis);
  const storeFor = (scope: string, what: string): Store =>
    redis
      ? new PassingStore(
          new RedisStore({
            prefix: `${keyPrefix}${scope}:`,
            sendCommand: async (command, ...args) => {
              await connected;
              return redis.call(command, ...args) as Promise<RedisReply>;
            },
          }),
          logger,
          what,
        )
      : new MemoryStore();
  const restStore = storeFor("rest", "REST requests");
  const authStore = storeFor("auth", "authentication attempts");
  const limiter = (store: Store, limit: number, what: string) =>
    rateLimit({
      store,
      limit,
      windowMs: config.RATE_LIMIT_WINDOW_MS,
      standardHeaders: "draft-8",
      legacyHeaders: false,
      keyGenerator: (req) => clientKey(req.ip),
      validate: {
        // clientKey applies ipKeyGenerator; the library's check only reads this function's source text.
        keyGeneratorIpFallback: false,
        // A request that PassingStore could not count (Redis away) has no hits and no reset time: the
        // library would take that for a broken store and log it as an error, on top of the outage.
        positiveHits: false,
        headersResetTime: false,
      },
      handler: (_req, _res, next) => next(new ServiceError("rate_limited", `too many ${what}; retry later`)),
      logger: {
        error: (error, message) => logger.error({ err: error }, message),
        warn: (error, message) => logger.warn({ err: error }, message),
      },
    });
  // Creating a limiter gives its store its window, so a counter over the same store shares its counts.
  const counter = (store: Store, limit: number): AttemptCounter => {
    const result = (totalHits: number, resetTime: Date | undefined): AttemptResult => {
      const retryAfterMs = resetTime ? resetTime.getTime() - Date.now() : config.RATE_LIMIT_WINDOW_MS;
      return { limited: totalHits > limit, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
    };
    return {
      hit: async (key) => {
        const { totalHits, resetTime } = await store.increment(key);
        return result(totalHits, resetTime);
      },
      peek: async (key) => {
        const counted = await store.get?.(key);
        return result(counted?.totalHits ?? 0, counted?.resetTime);
      },
    };
  };
  return {
    rest: limiter(restStore, config.RATE_LIMIT_REST_PER_MIN, "requests"),
    restRequests: counter(restStore, config.RATE_LIMIT_REST_PER_MIN),
    tokenIssuance: limiter(authStore, config.RATE_LIMIT_AUTH_PER_MIN, "authentication attempts"),
    authAttempts: counter(authStore, config.RATE_LIMIT_AUTH_PER_MIN),
    close: async () => {
      await Promise.all([restStore.shutdown?.(), authStore.shutdown?.()]);
      // Redis away: nothing to say goodbye to.
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
