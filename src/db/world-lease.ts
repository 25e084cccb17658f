import { and, eq, sql } from "drizzle-orm";
import { type Database, type Executor, STALLED_TRANSACTION_MS } from "./database.js";
import { worldLease } from "./schema.js";

/**
 * A claim or a revocation waits for the transactions of the world it replaces, and PostgreSQL ends a
 * stalled one after STALLED_TRANSACTION_MS: their statements outlast that, where the statement timeout
 * (DATABASE_STATEMENT_TIMEOUT_MS, 5 s by default) would cancel them just as the wait ends.
 */
const OUTLAST_STALLED_MS = STALLED_TRANSACTION_MS + 3000;

/** Thrown inside a world's transaction when another world has opened since: the transaction rolls back. */
export class WorldSupersededError extends Error {
  override name = "WorldSupersededError";
}

/** What a transaction runs first to be sure it may write (see WorldLease). */
export interface WriteFence {
  check(tx: Executor): Promise<void>;
}

/**
 * The right of one opening of the world to write (a fencing token). Scaled out, a process that stops
 * answering for a few seconds is taken for dead and the world opens elsewhere; should the first one come
 * back, its writes must not land beside the new world's, or the same items would be saved by both.
 */
export class WorldLease implements WriteFence {
  private constructor(
    /** The numbered world whose lease this is: each has its own row. */
    readonly world: number,
    readonly epoch: number,
  ) {}

  /**
   * Takes the next epoch. It waits for the transactions of the world it replaces that are under way (they
   * hold the row in share mode), so what the new world loads next includes them; later ones are refused.
   */
  static async claim(db: Database, world = 1): Promise<WorldLease> {
    const [row] = await outlastingStalled(db, (tx) =>
      tx
        .insert(worldLease)
        .values({ id: world, epoch: 1 })
        .onConflictDoUpdate({
          target: worldLease.id,
          set: { epoch: sql`${worldLease.epoch} + 1`, openedAt: sql`now()` },
        })
        .returning({ epoch: worldLease.epoch }),
    );
    return new WorldLease(world, row!.epoch);
  }

  /**
   * Ends the right to write of the world opened with `epoch`, unless a later world already did: for a
   * process that learns that world's process is gone (see TradeWorldLink). Like a claim, it waits for that
   * world's transactions under way; once it returns, nothing of that world commits any more. The world
   * itself, should it run on, finds out at its next write and closes; the next join opens a new one.
   */
  static async revoke(db: Database, epoch: number, world = 1): Promise<void> {
    await outlastingStalled(db, (tx) =>
      tx
        .update(worldLease)
        .set({ epoch: sql`${worldLease.epoch} + 1`, openedAt: sql`now()` })
        .where(and(eq(worldLease.id, world), eq(worldLease.epoch, epoch))),
    );
  }

  /** The first statement of each of the world's transactions: fails once another world holds the lease. */
  async check(tx: Executor): Promise<void> {
    const [row] = await tx
      .select({ epoch: worldLease.epoch })
      .from(worldLease)
      .where(eq(worldLease.id, this.world))
      .for("share");
    if (row?.epoch !== this.epoch)
      throw new WorldSupersededError(
        `another opening of world ${this.world} (epoch ${row?.epoch}, this one ${this.epoch}): this one may not write`,
      );
  }
}

/**
 * The lease as a server holds it, built once: a world opening here claims it on the world's own
 * connections; a trade whose world's process died revokes it on the shared ones.
 */
export class WorldLeases {
  constructor(
    private readonly worldDb: Database,
    private readonly db: Database,
  ) {}

  claim(world = 1): Promise<WorldLease> {
    return WorldLease.claim(this.worldDb, world);
  }

  revoke(epoch: number, world = 1): Promise<void> {
    return WorldLease.revoke(this.db, epoch, world);
  }
}

/** Runs `work` in a transaction whose statements may wait for a stalled transaction to be ended. */
function outlastingStalled<T>(db: Database, work: (tx: Executor) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local statement_timeout = ${OUTLAST_STALLED_MS}`));
    return work(tx);
  });
}
