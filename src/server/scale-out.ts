import { type IRoomCache, matchMaker, type Presence, ServerError, type SortOptions } from "@colyseus/core";
import { RedisDriver } from "@colyseus/redis-driver";
import { RedisPresence } from "@colyseus/redis-presence";
import { type Cluster, Redis } from "ioredis";
import { ListingsUnreachableError } from "../protocol/listings-unreachable.js";
import type { Logger } from "../telemetry/logger.js";
import { forgetFailedLookups, missingLookupInternals } from "./redis-driver-lookups.js";

/**
 * Logs a Redis connection's outage once when it begins and once when it ends. Left alone, ioredis
 * reports every failed reconnection (up to one every two seconds) as an error event, which Colyseus's
 * clients printed to the console as plain text, a line or two each.
 */
function logRedisOutages(client: Redis | Cluster, logger: Logger, what: string): void {
  let down = false;
  client.on("error", (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: error }, `${what}: Redis cannot be reached; reconnecting`);
  });
  client.on("ready", () => {
    if (!down) return;
    down = false;
    logger.info(`${what}: Redis is reached again`);
  });
}

/**
 * The Redis connections of a stopping process, let go of while Redis cannot be reached. The matchmaker's
 * shutdown awaits writes there (its process's room count, its listings): each would wait ~10 s for Redis
 * and then fail, and the first failure ends the shutdown before the rooms are disposed and saved. Let go,
 * those writes are skipped; other processes unlist what this one leaves behind (their health checks).
 */
class LetGoWhenAway {
  /** Whether the connections were let go: what they would still do is skipped. */
  away = false;
  private readonly clients: (Redis | Cluster)[] = [];

  watch(client: Redis | Cluster): void {
    this.clients.push(client);
  }

  /** From now on (the process stops), lets the connections go as soon as Redis cannot be reached. */
  stopping(): void {
    if (this.clients.some((client) => client.status !== "ready")) {
      this.letGo();
      return;
    }
    for (const client of this.clients) client.once("close", () => this.letGo());
  }

  /** What `write` gives, or `skipped` once the connections are let go (it may have failed for that). */
  async unlessAway<T>(write: () => Promise<T>, skipped: T): Promise<T> {
    if (this.away) return skipped;
    try {
      return await write();
    } catch (error) {
      if (this.away) return skipped;
      throw error;
    }
  }

  private letGo(): void {
    if (this.away) return;
    this.away = true;
    // Rejects what waits for Redis at once, and stops reconnecting.
    for (const client of this.clients) client.disconnect();
  }
}

/**
 * How long a Redis command waits, queued while Redis is away or sent and unanswered, before it fails
 * (the join or lookup behind it answered 503). Left to ioredis, a command waits for 20 reconnection
 * attempts, whose spacing grows to 2 s each: about 10 s early in an outage, but 40 s once it lasts,
 * longer than clients and load balancers wait.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 10_000;

/** A connection to the Redis at `url` whose commands wait REDIS_COMMAND_TIMEOUT_MS at most. */
function redisAt(url: string): Redis {
  return new Redis(url, { commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
}

/** Colyseus's presence in Redis, whose connections report their outages as `logRedisOutages` does. */
class LoggedRedisPresence extends RedisPresence {
  readonly whenAway = new LetGoWhenAway();

  constructor(url: string, logger: Logger) {
    // Its second connection (subscriptions) is a duplicate of this one, with the same bound.
    super(redisAt(url));
    for (const [client, what] of [
      [this.pub, "presence (publishing)"],
      [this.sub, "presence (subscriptions)"],
    ] as const) {
      client.removeAllListeners("error");
      logRedisOutages(client, logger, what);
      this.whenAway.watch(client);
    }
  }

  /** The one presence write the matchmaker's shutdown awaits (its process's room count). */
  override hdel(key: string, field: string): Promise<boolean> {
    return this.whenAway.unlessAway(() => super.hdel(key, field), false);
  }

  override shutdown(): void {
    if (!this.whenAway.away) super.shutdown();
  }
}

/**
 * Room listings that, when a lookup finds nothing, list this process's rooms again and look once more.
 * After a Redis restart that emptied it, a lookup queued during the outage reaches Redis ahead of the
 * relisting that the reconnection starts (both go out on the same connection, the relisting a round trip
 * later): the world running here would be taken for gone, and a join would create a second one, whose
 * lease closes the first with its players. A miss costs one more round trip otherwise.
 */
class RelistingRedisDriver extends RedisDriver {
  readonly whenAway = new LetGoWhenAway();

  constructor(private readonly listings: Redis) {
    super(listings);
    this.whenAway.watch(listings);
  }

  /** Whether its connection to Redis is up now. */
  get connected(): boolean {
    return this.listings.status === "ready";
  }

  /** Unlists this process's rooms: awaited by the matchmaker's shutdown. */
  override cleanup(processId: string): Promise<void> {
    return this.whenAway.unlessAway(() => super.cleanup(processId), undefined);
  }

  /** Unlists a room: awaited by its disposal, before its onDispose saves it. */
  override remove(roomId: string): Promise<boolean> {
    return this.whenAway.unlessAway(() => super.remove(roomId), false);
  }

  /** Changes a room's listing (a shutdown locks every room). */
  override update(...args: Parameters<RedisDriver["update"]>): Promise<boolean> {
    return this.whenAway.unlessAway(() => super.update(...args), false);
  }

  override shutdown(): Promise<void> {
    return this.whenAway.unlessAway(() => super.shutdown(), undefined);
  }

  override query(conditions: Partial<IRoomCache>, sortOptions?: SortOptions): Promise<IRoomCache[]> {
    return this.reached(async () => {
      const found = await super.query(conditions, sortOptions);
      if (found.length > 0 || !(await relisted())) return found;
      return super.query(conditions, sortOptions);
    });
  }

  override findOne(conditions: Partial<IRoomCache>, sortOptions?: SortOptions): Promise<IRoomCache> {
    return this.reached(async () => {
      const found = await super.findOne(conditions, sortOptions);
      if (found || !(await relisted())) return found;
      return super.findOne(conditions, sortOptions);
    });
  }

  override findByIds(roomIds: string[]): Promise<Map<string, IRoomCache>> {
    return this.reached(() => super.findByIds(roomIds));
  }

  override has(roomId: string): Promise<boolean> {
    return this.reached(() => super.has(roomId));
  }

  /**
   * A lookup that failed while Redis could not be reached (after REDIS_COMMAND_TIMEOUT_MS at most) fails
   * with ListingsUnreachableError, which clients are told as 503 with a message of the server's own. Any
   * other failure is a fault, and stays as it is.
   */
  private async reached<T>(lookUp: () => Promise<T>): Promise<T> {
    try {
      return await lookUp();
    } catch (error) {
      if (error instanceof ServerError || this.listings.status === "ready") throw error;
      throw new ListingsUnreachableError(error);
    }
  }
}

/**
 * Called as the process begins to stop: while Redis cannot be reached (now or from now on), the
 * matchmaker's last writes there are skipped rather than waited for (see LetGoWhenAway).
 */
export function stopWaitingForRedisWhenAway(): void {
  const { presence, driver } = matchMaker;
  if (presence instanceof LoggedRedisPresence) presence.whenAway.stopping();
  if (driver instanceof RelistingRedisDriver) driver.whenAway.stopping();
}

/**
 * Whether this process reaches the Redis its processes share (their room listings): undefined when it is
 * not scaled out. Read from the connection's state, so a flood of health checks sends Redis nothing.
 */
export function reachesRedis(): boolean | undefined {
  const { driver } = matchMaker;
  return driver instanceof RelistingRedisDriver ? driver.connected : undefined;
}

/** Lists this process's rooms that Redis lacks; whether that could be done. */
function relisted(): Promise<boolean> {
  return matchMaker.restoreMissingRoomCaches().then(
    () => true,
    () => false,
  );
}

export interface ScaleOutOptions {
  /** FORGET_FAILED_ROOM_LOOKUPS: whether the driver's cached failed lookup is forgotten (see forgetFailedLookups). */
  forgetFailedLookups: boolean;
}

/** The presence and the driver through which processes that share `url` share rooms and messages. */
export function scaleOutThrough(
  url: string,
  logger: Logger,
  options: ScaleOutOptions,
): { presence: Presence; driver: RedisDriver } {
  const listings = redisAt(url);
  logRedisOutages(listings, logger, "room listings");
  // A Redis that restarts empty (it kept nothing on disk, or failed over) forgets every room: Colyseus
  // would take the running world for gone, and the next join would create a second one, whose lease
  // closes the first with its players. So each process lists its rooms again once Redis is back.
  listings.on("ready", () => {
    matchMaker
      .restoreMissingRoomCaches()
      .catch((error: unknown) =>
        logger.warn({ err: error }, "listing this process's rooms again in Redis failed"),
      );
  });
  const driver = new RelistingRedisDriver(listings);
  if (options.forgetFailedLookups && !forgetFailedLookups(driver))
    logger.warn(
      `@colyseus/redis-driver's internals moved (${missingLookupInternals(driver).join(", ")} not found): ` +
        "a room lookup that fails while Redis is away may be handed to every later one. Pin the version " +
        "src/server/redis-driver-lookups.ts names, or set FORGET_FAILED_ROOM_LOOKUPS=false once the driver forgets it itself",
    );
  return { presence: new LoggedRedisPresence(url, logger), driver };
}
