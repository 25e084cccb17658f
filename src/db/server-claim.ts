// Which server processes may use one PostgreSQL database at once. Without Redis a process runs the
// worlds by itself: a second one on the same database would open them too, and each opening closes
// the other's (see world-lease.ts), throwing their players out. Processes sharing Redis coordinate and
// may share it. A session-level advisory lock on a connection of its own says which, for the process's
// life: taken exclusively by a process alone, shared by those that scale out. It guards start-up only:
// should that connection drop (the database restarted), the lock is gone until the next start.
import pg from "pg";
import { StartupError } from "../config/startup-error.js";

/** "alone": no other server process may use the database; "shared": processes that share Redis may. */
export type ServerClaim = "alone" | "shared";

/** The advisory lock's key: any number no other program on the database would pick. */
const CLAIM_KEY = 7_474_841_002;

/** Takes the claim on a connection of its own; the returned function lets it go. */
export async function claimDatabase(url: string, claim: ServerClaim): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url });
  // A dropped connection loses the lock, no more: the server goes on.
  client.on("error", () => {});
  await client.connect();
  const lock = claim === "alone" ? "pg_try_advisory_lock" : "pg_try_advisory_lock_shared";
  const { rows } = await client.query<{ claimed: boolean }>(`select ${lock}($1) as claimed`, [CLAIM_KEY]);
  if (rows[0]?.claimed) return () => client.end().catch(() => {});
  await client.end().catch(() => {});
  throw new StartupError(
    claim === "alone"
      ? "Another server process uses the database at DATABASE_URL. Without REDIS_URL a process runs the " +
          "worlds by itself, and two would keep closing each other's: stop the other one, or give every " +
          "process the same REDIS_URL to run them together."
      : "A server process without REDIS_URL uses the database at DATABASE_URL: it runs the worlds by " +
          "itself. Stop it, or give it the same REDIS_URL as this one.",
  );
}
