// Redis checked at start-up: an address that does not answer would otherwise surface some 12 s later as
// an ioredis stack trace from deep in the matchmaker, naming neither REDIS_URL nor what to do.
import { Redis } from "ioredis";
import { StartupError } from "../config/startup-error.js";

/** How long start-up waits for Redis to answer before saying it cannot be reached. */
const REACH_TIMEOUT_MS = 5000;

/** Resolves once Redis at `url` answers a ping; otherwise fails with a StartupError naming REDIS_URL. */
export async function reachRedis(url: string, timeoutMs = REACH_TIMEOUT_MS): Promise<void> {
  const fix = "check REDIS_URL and that Redis runs, or unset it to run a single process";
  let where: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") throw new Error(parsed.protocol);
    // The host alone: the address may hold a password.
    where = parsed.host;
  } catch {
    throw new StartupError(`REDIS_URL is not a redis:// or rediss:// address: ${fix}.`);
  }
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The connection's own error says why (refused, unknown host); the connect's only that it closed.
  let cause: Error | undefined;
  client.on("error", (error: Error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    const reason = (cause ?? (error instanceof Error ? error : new Error(String(error)))).message;
    throw new StartupError(`Cannot reach Redis at REDIS_URL (${where}: ${reason}): ${fix}.`, {
      cause: error,
    });
  } finally {
    client.disconnect();
  }
}
