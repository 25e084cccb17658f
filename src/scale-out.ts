import { type IRoomCache, matchMaker, type Presence, type SortOptions } from "@colyseus/core";
import { RedisDriver } from "@colyseus/redis-driver";
import { RedisPresence } from "@colyseus/redis-presence";
import { type Cluster, Redis } from "ioredis";
import type { Logger } from "./logger.js";

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

/** Colyseus's presence in Redis, whose connections report their outages as `logRedisOutages` does. */
class LoggedRedisPresence extends RedisPresence {
  constructor(url: string, logger: Logger) {
    super(url);
    for (const [client, what] of [
      [this.pub, "presence (publishing)"],
      [this.sub, "presence (subscriptions)"],
    ] as const) {
      client.removeAllListeners("error");
      logRedisOutages(client, logger, what);
    }
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
  override async query(conditions: Partial<IRoomCache>, sortOptions?: SortOptions): Promise<IRoomCache[]> {
    const found = await super.query(conditions, sortOptions);
    if (found.length > 0 || !(await relisted())) return found;
    return super.query(conditions, sortOptions);
  }

  override async findOne(conditions: Partial<IRoomCache>, sortOptions?: SortOptions): Promise<IRoomCache> {
    const found = await super.findOne(conditions, sortOptions);
    if (found || !(await relisted())) return found;
    return super.findOne(conditions, sortOptions);
  }
}

/** Lists this process's rooms that Redis lacks; whether that could be done. */
function relisted(): Promise<boolean> {
  return matchMaker.restoreMissingRoomCaches().then(
    () => true,
    () => false,
  );
}

/** The presence and the driver through which processes that share `url` share rooms and messages. */
export function scaleOutThrough(url: string, logger: Logger): { presence: Presence; driver: RedisDriver } {
  const listings = new Redis(url);
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
  return { presence: new LoggedRedisPresence(url, logger), driver: new RelistingRedisDriver(listings) };
}
