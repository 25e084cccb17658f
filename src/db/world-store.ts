import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { GroundItem } from "../game/ground-items.js";
import { type CharacterSave, writeCharacters } from "./characters.js";
import type { Database, Executor } from "./database.js";
import { isDataError } from "./pg-errors.js";
import { groundItems, trades } from "./schema.js";
import type { WriteFence } from "./world-lease.js";

/** The ground items a tick put down or changed, and the ids of those it took away. */
export interface GroundChanges {
  put: readonly GroundItem[];
  removed: readonly string[];
}

/** One write of the world: characters' changed parts and the ground's changes, all or nothing. */
export interface WorldWrite {
  characters: readonly CharacterSave[];
  ground?: GroundChanges;
  /**
   * Trades whose swap this write undoes, should it have committed (see TradeCommits.outcomeInDoubt): their
   * history rows go with it, so the history holds no trade the inventories do not.
   */
  undoneTrades?: readonly string[];
}

/** Whether a write has nothing to write. */
export function isEmptyWrite({ characters, ground, undoneTrades }: WorldWrite): boolean {
  return characters.length === 0 && !ground?.put.length && !ground?.removed.length && !undoneTrades?.length;
}

/**
 * The world's own writes. A drop empties an inventory slot and puts the item on the ground in the same
 * transaction, and a pickup does the reverse, so an item is never in neither place nor in both.
 */
export class WorldStore {
  constructor(
    private readonly db: Database,
    /** The numbered world whose ground this writes (see WORLDS); characters are the same in every world. */
    readonly world = 1,
  ) {}

  /** The same writes for another numbered world. */
  forWorld(world: number): WorldStore {
    return world === this.world ? this : new WorldStore(this.db, world);
  }

  /**
   * Writes in one transaction; with a `fence`, only while it holds (see WorldLease). Each of `apart` is
   * written within it on its own (a savepoint): one the database refuses as data (see isDataError) is
   * left out, and given back, instead of failing the whole transaction.
   */
  async save(
    write: WorldWrite,
    fence?: WriteFence,
    apart: readonly CharacterSave[] = [],
  ): Promise<CharacterSave[]> {
    const refused: CharacterSave[] = [];
    if (isEmptyWrite(write) && apart.length === 0) return refused;
    const { characters, ground, undoneTrades } = write;
    await this.db.transaction(async (tx) => {
      await fence?.check(tx);
      for (const save of apart) {
        try {
          await tx.transaction((savepoint) => writeCharacters(savepoint, [save]));
        } catch (error) {
          if (!isDataError(error)) throw error;
          refused.push(save);
        }
      }
      await writeCharacters(tx, characters);
      if (ground) await writeGround(tx, this.world, ground);
      if (undoneTrades?.length) await tx.delete(trades).where(inArray(trades.id, [...undoneTrades]));
    });
    return refused;
  }

  /** Resolves while `fence` holds; rejects as its check does (see WorldLease) once it does not. */
  async checkFence(fence: WriteFence): Promise<void> {
    await this.db.transaction((tx) => fence.check(tx));
  }

  /**
   * The stored ground items, their dropped ticks moved so that the newest fell at `tick` (the loading
   * world's tick), in the table too: the time the server was down does not count against them, and the
   * next load moves them again from the same count.
   */
  async loadGround(tick: number): Promise<GroundItem[]> {
    return this.db.transaction(async (tx) => {
      const inWorld = eq(groundItems.world, this.world);
      const rows = await tx.select().from(groundItems).where(inWorld).orderBy(asc(groundItems.droppedTick));
      const newest = rows.at(-1);
      if (!newest) return [];
      const shift = tick - newest.droppedTick;
      if (shift !== 0)
        await tx
          .update(groundItems)
          .set({ droppedTick: sql`${groundItems.droppedTick} + ${shift}` })
          .where(inWorld);
      return rows.map((row) => ({
        id: row.id,
        itemId: row.itemId,
        quantity: row.quantity,
        position: { x: row.x, z: row.z },
        droppedTick: row.droppedTick + shift,
        ...(row.ownerId === null ? {} : { ownerId: row.ownerId }),
      }));
    });
  }
}

async function writeGround(tx: Executor, world: number, { put, removed }: GroundChanges): Promise<void> {
  if (removed.length > 0)
    await tx
      .delete(groundItems)
      .where(and(eq(groundItems.world, world), inArray(groundItems.id, [...removed])));
  if (put.length === 0) return;
  const rows = put.map((item) => ({
    world,
    id: item.id,
    itemId: item.itemId,
    quantity: item.quantity,
    x: item.position.x,
    z: item.position.z,
    ownerId: item.ownerId ?? null,
    droppedTick: item.droppedTick,
  }));
  await tx
    .insert(groundItems)
    .values(rows)
    .onConflictDoUpdate({
      target: [groundItems.world, groundItems.id],
      set: {
        quantity: sql`excluded.quantity`,
        x: sql`excluded.x`,
        z: sql`excluded.z`,
        ownerId: sql`excluded.owner_id`,
        droppedTick: sql`excluded.dropped_tick`,
      },
    });
}
