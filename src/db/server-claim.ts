// Which server processes may use one PostgreSQL database at once. Without Redis a process runs the
// worlds by itself: a second one on the same database would open them too, and each opening closes
// the other's (see world-lease.ts), throwing their players out. Processes sharing Redis coordinate and
// may share it. A session-level advisory lock on a connection of its own says which, for the process's
// life: taken exclusively by a process alone, shared by those that scale out. Should that connection
// drop (the database restarted), the lock goes with it: the process takes it again on a new one.
import pg from "pg";
import { StartupError } from "../config/startup-error.js";

/** "alone": no other server process may use the database; "shared": processes that share Redis may. */
export type ServerClaim = "alone" | "shared";

/**
 * What became of a claim after its connection dropped: `lost` as it drops, then `retaken`, or
 * `held_elsewhere` when a process that conflicts with this one took the database meanwhile (told once,
 * and tried again until it lets go).
 */
export type ClaimNews = "lost" | "retaken" | "held_elsewhere";

/** The advisory lock's key: any number no other program on the database would pick. */
const CLAIM_KEY = 7_474_841_002;
/** The name the claim's connection shows in pg_stat_activity. */
export const CLAIM_APPLICATION_NAME = "tileworld-server-claim";
/** The first wait before taking a lost claim again, doubled after each failure up to the last. */
const RETAKE_FIRST_MS = 1000;
const RETAKE_LAST_MS = 30_000;

/**
 * Takes the claim on a connection of its own, and takes it again whenever that connection drops; the
 * returned function lets it go. `tell` hears what became of a lost claim.
 */
export async function claimDatabase(
  url: string,
  claim: ServerClaim,
  tell: (news: ClaimNews) => void = () => {},
): Promise<() => Promise<void>> {
  const first = await takeClaim(url, claim);
  if (!first) throw claimRefused(claim);
  let held = first;
  let released = false;
  let retake: NodeJS.Timeout | undefined;
  let toldHeldElsewhere = false;

  const retry = (waitMs: number) => {
    retake = setTimeout(async () => {
      // null: the database cannot be reached yet.
      const again = await takeClaim(url, claim).catch(() => null);
      if (released) {
        await again?.end().catch(() => {});
      } else if (again) {
        held = again;
        watch(again);
        toldHeldElsewhere = false;
        tell("retaken");
      } else {
        if (again === undefined && !toldHeldElsewhere) {
          toldHeldElsewhere = true;
          tell("held_elsewhere");
        }
        retry(Math.min(waitMs * 2, RETAKE_LAST_MS));
      }
    }, waitMs);
    retake.unref();
  };
  const watch = (client: pg.Client) => {
    client.on("end", () => {
      if (released) return;
      tell("lost");
      retry(RETAKE_FIRST_MS);
    });
  };
  watch(held);
  return async () => {
    released = true;
    clearTimeout(retake);
    await held.end().catch(() => {});
  };
}

/** A connection holding the claim, or undefined when a conflicting process holds it. */
async function takeClaim(url: string, claim: ServerClaim): Promise<pg.Client | undefined> {
  const client = new pg.Client({ connectionString: url, application_name: CLAIM_APPLICATION_NAME });
  // A dropped connection ends the client, which `claimDatabase` watches for.
  client.on("error", () => {});
  try {
    await client.connect();
    const lock = claim === "alone" ? "pg_try_advisory_lock" : "pg_try_advisory_lock_shared";
    const { rows } = await client.query<{ claimed: boolean }>(`select ${lock}($1) as claimed`, [CLAIM_KEY]);
    if (rows[0]?.claimed) return client;
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  await client.end().catch(() => {});
  return undefined;
}

function claimRefused(claim: ServerClaim): StartupError {
  return new StartupError(
    claim === "alone"
      ? "Another server process uses the database at DATABASE_URL. Without REDIS_URL a process runs the " +
          "worlds by itself, and two would keep closing each other's: stop the other one, or give every " +
          "process the same REDIS_URL to run them together."
      : "A server process without REDIS_URL uses the database at DATABASE_URL: it runs the worlds by " +
          "itself. Stop it, or give it the same REDIS_URL as this one.",
  );
}
