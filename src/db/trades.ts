import { asc, eq, or, type SQL, sql } from "drizzle-orm";
import type { InventoryEntry } from "../game/character-state.js";
import type { TradeOffer } from "../game/trade.js";
import { applyTradeToInventories } from "../game/trade-swap.js";
import { offerItems } from "../game/trade-views.js";
import type { ItemDef, ItemQuantity } from "../game/types.js";
import { lockCharacters } from "./characters.js";
import type { Database, Executor } from "./database.js";
import { pgError } from "./pg-errors.js";
import { trades } from "./schema.js";
import type { WriteFence } from "./world-lease.js";

/** One side of a trade at commit: who, and the offer they accepted. */
export interface TradeParticipant {
  characterId: string;
  offer: readonly TradeOffer[];
}

export interface TradeCompletion {
  tradeId: string;
  a: TradeParticipant;
  b: TradeParticipant;
  /**
   * The `performance.now()` after which the swap must not commit (its caller would have stopped waiting
   * for the answer): checked last in the transaction, which is then rolled back as `too_late`.
   */
  commitBy?: number;
}

export type TradeFailureReason =
  | "insufficient_items"
  | "inventory_full"
  /** The history already holds this trade id: its items moved once and never move again. */
  | "already_completed"
  | "character_not_found"
  | "self_trade"
  /** The database aborted the transaction (deadlock, serialization failure, a refused row); retrying may succeed. */
  | "conflict"
  /** Its `commitBy` had passed when it was about to commit: nothing moved. */
  | "too_late";

export type TradeOutcome =
  | {
      ok: true;
      inventoryA: InventoryEntry[];
      inventoryB: InventoryEntry[];
      receivedA: ItemQuantity[];
      receivedB: ItemQuantity[];
    }
  | { ok: false; reason: TradeFailureReason };

export interface CompletedTrade {
  id: string;
  /** Null: a character since deleted (see the trades table). */
  playerA: string | null;
  playerB: string | null;
  gaveA: ItemQuantity[];
  gaveB: ItemQuantity[];
  completedAt: Date;
}

/** How long the check of a swap in doubt waits for the swap's own transaction to end. */
export const IN_DOUBT_WAIT_MS = 5000;

/** Thrown to roll back the check of a swap that did not commit (see inventoriesIfCompleted). */
class NotCompleted extends Error {}

/** Thrown inside the transaction to roll it back; turned into a failed outcome outside. */
class TradeRefused extends Error {
  constructor(readonly reason: TradeFailureReason) {
    super(reason);
  }
}

// SQLSTATEs after which the transaction was rolled back whole and the trade can simply be retried.
const RETRYABLE_OR_REFUSED = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "23502", // not_null_violation
  "23503", // foreign_key_violation
  "23505", // unique_violation
  "23514", // check_violation
]);

export class TradeRepository {
  constructor(private readonly db: Database) {}

  /**
   * Swaps both offers in one transaction, re-checking every offered slot under row locks: either
   * everything moves and the history records it, or nothing moves. Errors other than refusals and
   * conflicts (a lost connection, say) are thrown; the transaction is rolled back all the same. With a
   * `fence`, the swap happens only while it holds (see WorldLease).
   */
  async complete(
    trade: TradeCompletion,
    items: ReadonlyMap<string, ItemDef>,
    fence?: WriteFence,
  ): Promise<TradeOutcome> {
    const { a, b } = trade;
    if (a.characterId === b.characterId) return { ok: false, reason: "self_trade" };
    try {
      return await this.db.transaction(async (tx) => {
        await fence?.check(tx);
        if ((await lockCharacters(tx, [a.characterId, b.characterId])).size !== 2)
          throw new TradeRefused("character_not_found");
        if (!(await recordTrade(tx, trade))) throw new TradeRefused("already_completed");
        const [inventoryA, inventoryB] = await readInventories(tx, a.characterId, b.characterId);
        const swap = applyTradeToInventories(inventoryA, inventoryB, a.offer, b.offer, items);
        if (!swap.ok) throw new TradeRefused(swap.reason);
        await writeInventoryChanges(tx, [
          { characterId: a.characterId, before: inventoryA, after: swap.invA },
          { characterId: b.characterId, before: inventoryB, after: swap.invB },
        ]);
        if (trade.commitBy !== undefined && performance.now() > trade.commitBy)
          throw new TradeRefused("too_late");
        return {
          ok: true as const,
          inventoryA: swap.invA,
          inventoryB: swap.invB,
          receivedA: swap.receivedA,
          receivedB: swap.receivedB,
        };
      });
    } catch (error) {
      if (error instanceof TradeRefused) return { ok: false, reason: error.reason };
      if (RETRYABLE_OR_REFUSED.has(pgError(error)?.code ?? "")) return { ok: false, reason: "conflict" };
      throw error;
    }
  }

  /**
   * Whether the trade committed, and if so both characters' inventories as stored: for a swap whose
   * transaction failed with its connection, which may have committed all the same. Its history row is
   * inserted again, in a transaction that is rolled back: while the swap's own transaction still holds
   * that id (its commit in flight), the insert waits for it, where a read would not see the row yet. It
   * waits at most IN_DOUBT_WAIT_MS, then throws.
   */
  async inventoriesIfCompleted(
    trade: TradeCompletion,
  ): Promise<[InventoryEntry[], InventoryEntry[]] | undefined> {
    try {
      return await this.db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local statement_timeout = ${IN_DOUBT_WAIT_MS}`));
        if (await recordTrade(tx, trade)) throw new NotCompleted();
        return readInventories(tx, trade.a.characterId, trade.b.characterId);
      });
    } catch (error) {
      if (error instanceof NotCompleted) return undefined;
      throw error;
    }
  }

  /** Whether the trade's swap committed (its history row is there). */
  async wasCompleted(tradeId: string): Promise<boolean> {
    const [row] = await this.db.select({ id: trades.id }).from(trades).where(eq(trades.id, tradeId));
    return row !== undefined;
  }

  /** Completed trades the character took part in, oldest first. */
  async history(characterId: string): Promise<CompletedTrade[]> {
    const completed = await this.db
      .select()
      .from(trades)
      .where(or(eq(trades.playerA, characterId), eq(trades.playerB, characterId)))
      .orderBy(asc(trades.completedAt), asc(trades.id));
    return completed.map((row) => ({
      id: row.id,
      playerA: row.playerA,
      playerB: row.playerB,
      gaveA: row.gaveA as ItemQuantity[],
      gaveB: row.gaveB as ItemQuantity[],
      completedAt: row.completedAt,
    }));
  }
}

// The statements of a commit are SQL templates rather than the query builder: building them cost
// about a third of the repository's overhead over hand-written SQL (bench/trades.ts).

/** Inserts the history row first: a trade id seen before is found before anything is read or moved. */
async function recordTrade(tx: Executor, { tradeId, a, b }: TradeCompletion): Promise<boolean> {
  const inserted = await rows(
    tx,
    sql`insert into trades (id, player_a, player_b, gave_a, gave_b)
        values (${tradeId}, ${a.characterId}, ${b.characterId},
                ${JSON.stringify(offerItems(a.offer))}::jsonb, ${JSON.stringify(offerItems(b.offer))}::jsonb)
        on conflict (id) do nothing returning id`,
  );
  return inserted.length === 1;
}

async function readInventories(
  tx: Executor,
  idA: string,
  idB: string,
): Promise<[InventoryEntry[], InventoryEntry[]]> {
  const held = await rows<InventoryEntry & { character_id: string; item_id: string }>(
    tx,
    sql`select character_id, slot, item_id, quantity from inventory
        where character_id in (${idA}, ${idB}) order by slot for update`,
  );
  const of = (id: string) =>
    held
      .filter((row) => row.character_id === id)
      .map(({ slot, item_id, quantity }) => ({ slot, itemId: item_id, quantity }));
  return [of(idA), of(idB)];
}

interface InventoryChange {
  characterId: string;
  before: readonly InventoryEntry[];
  after: readonly InventoryEntry[];
}

/** Writes only the slots the trade touched: one delete for emptied slots, one upsert for the rest. */
async function writeInventoryChanges(tx: Executor, changes: readonly InventoryChange[]): Promise<void> {
  const emptied = changes.flatMap(({ characterId, before, after }) =>
    before
      .filter((old) => !after.some((entry) => entry.slot === old.slot))
      .map(({ slot }) => sql`(${characterId}, ${slot})`),
  );
  const written = changes.flatMap(({ characterId, before, after }) =>
    after
      .filter((entry) => !before.some((old) => sameEntry(old, entry)))
      .map(({ slot, itemId, quantity }) => sql`(${characterId}, ${slot}, ${itemId}, ${quantity})`),
  );
  if (emptied.length > 0) {
    await tx.execute(
      sql`delete from inventory where (character_id, slot) in (${sql.join(emptied, sql`, `)})`,
    );
  }
  if (written.length > 0) {
    await tx.execute(sql`
      insert into inventory (character_id, slot, item_id, quantity) values ${sql.join(written, sql`, `)}
      on conflict (character_id, slot) do update set item_id = excluded.item_id, quantity = excluded.quantity`);
  }
}

/** The rows a statement returned; both drivers answer `{ rows }`. */
async function rows<Row>(tx: Executor, statement: SQL): Promise<Row[]> {
  return ((await tx.execute(statement)) as unknown as { rows: Row[] }).rows;
}

function sameEntry(a: InventoryEntry, b: InventoryEntry): boolean {
  return a.slot === b.slot && a.itemId === b.itemId && a.quantity === b.quantity;
}
