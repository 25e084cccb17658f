import { performance } from "node:perf_hooks";
import { CONNECTION_WAIT_MS } from "../db/database.js";
import {
  IN_DOUBT_WAIT_MS,
  type TradeOutcome,
  type TradeParticipant,
  type TradeRepository,
} from "../db/trades.js";
import { type WorldLease, WorldSupersededError } from "../db/world-lease.js";
import type { InventoryEntry } from "../game/character-state.js";
import type { ItemDef } from "../game/types.js";
import type { World } from "../game/world.js";
import type { TradeCommitOutcome } from "../ports/world-port.js";
import type { Logger } from "../telemetry/logger.js";
import { recordTradeCommit } from "../telemetry/metrics.js";
import type { TickSaves } from "./tick-saves.js";
import type { WorldPersistence } from "./world-persistence.js";

/**
 * What a swap leaves of its caller's wait after its last check: enough for the COMMIT, for the check of
 * a swap whose answer was lost (a connection of the pool, then IN_DOUBT_WAIT_MS at most) and for the
 * answer's way back to a trade room on another process.
 */
export const ANSWER_RESERVE_MS = CONNECTION_WAIT_MS + IN_DOUBT_WAIT_MS + 2000;

/** The world room as its trades' commits see it. */
export interface TradeCommitWorld {
  readonly world: World;
  /** Whether the character is played in the world by a session (not only kept there by a fight). */
  isPlaying(characterId: string): boolean;
  /** Whether the world waits for its database (see TickLoop.waitsForDatabase): nothing may commit. */
  waitsForDatabase(): boolean;
  /** Whether the two players stand too far apart to trade. */
  tooFar(a: string, b: string): boolean;
  /** The tick that came while trades were committing and waits for them, if one does (see TickLoop). */
  heldTick(): Promise<void> | undefined;
  /** No trade is committing any more: the tick loop runs the tick that waited, if one did. */
  commitsDone(): void;
}

export interface TradeCommitDependencies {
  readonly repository: TradeRepository;
  readonly persistence: WorldPersistence;
  readonly saves: TickSaves;
  readonly items: ReadonlyMap<string, ItemDef>;
  readonly lease: WorldLease;
  readonly logger: Logger;
}

/**
 * The world's trades committing: each swap in one database transaction while the tick waits and both
 * inventories are frozen, so the transaction sees exactly what the world holds, and only after the
 * commit do the world's inventories change.
 */
export class TradeCommits {
  /**
   * Trades committing, by player. Ticks wait while any commits and a leaving player waits for its own,
   * so nothing snapshots an inventory that the trade's transaction is about to change.
   */
  private readonly commits = new Map<string, Promise<unknown>>();

  constructor(
    private readonly room: TradeCommitWorld,
    private readonly dependencies: TradeCommitDependencies,
  ) {}

  /** Whether trades are committing: a tick waits for them (it then runs once they are done). */
  committing(): boolean {
    return this.commits.size > 0;
  }

  /** Resolves once no trade of the player's is committing. */
  async settled(characterId: string): Promise<void> {
    // Until none is committing: a trade that waited for a tick may have started during the wait.
    for (let commit = this.commits.get(characterId); commit; commit = this.commits.get(characterId))
      await commit;
  }

  /**
   * Swaps the offers (see the class). A tick already waiting for other trades goes first.
   *
   * The caller stops waiting after `answerWithinMs` and tells its players the trade failed, so the swap
   * commits only while enough of that is left to answer in (ANSWER_RESERVE_MS), whatever it waited for (the
   * tick, the writes queued ahead of it, the locks); after that it is rolled back and refused with
   * `commit_failed`.
   */
  async commit(
    tradeId: string,
    a: TradeParticipant,
    b: TradeParticipant,
    answerWithinMs: number,
  ): Promise<TradeCommitOutcome> {
    const { room } = this;
    const { world } = room;
    const commitBy = performance.now() + answerWithinMs - ANSWER_RESERVE_MS;
    const ids = [a.characterId, b.characterId];
    const alreadyTrading = () => ids.some((id) => this.commits.has(id));
    // Refused before the wait too: its player's other trade may be what the tick waits for.
    if (alreadyTrading()) return { ok: false, reason: "already_trading" };
    for (let held = room.heldTick(); held; held = room.heldTick()) await held;
    // Its session, not only its player: a player kept in the world by a fight (see CombatLogouts) logged
    // out, and the swap of a trade its logout cancelled may still reach here.
    if (!ids.every((id) => room.isPlaying(id))) return { ok: false, reason: "player_offline" };
    if (room.waitsForDatabase()) return { ok: false, reason: "commit_failed" };
    if (alreadyTrading()) return { ok: false, reason: "already_trading" };
    // Players may walk while they trade; walking out of range ends the trade, as closing its window would.
    if (room.tooFar(a.characterId, b.characterId)) return { ok: false, reason: "too_far" };
    for (const id of ids) world.setBusy(id, "trade");
    const { persistence, repository, items, lease } = this.dependencies;
    // Queued behind every pending write, so the transaction reads what the world holds now.
    const started = performance.now();
    const committed = persistence
      .run(async (): Promise<TradeOutcome> => {
        // Refused like a conflict (trying again may succeed) while the database cannot be brought up to date.
        if (!(await this.catchUpFailedWrites())) return { ok: false, reason: "conflict" };
        return repository.complete({ tradeId, a, b, commitBy }, items, lease);
      })
      .catch((error: unknown) => this.outcomeInDoubt(tradeId, a, b, error))
      .then((outcome) => {
        recordTradeCommit((performance.now() - started) / 1000, outcome.ok ? "ok" : "failed");
        if (outcome.ok) {
          world.replaceInventory(a.characterId, outcome.inventoryA);
          world.replaceInventory(b.characterId, outcome.inventoryB);
        }
        return outcome;
      });
    // What a leaving player waits for (see settled): the world holds the trade's outcome by then, so its
    // final save is written from the inventory the database now has.
    for (const id of ids)
      this.commits.set(
        id,
        committed.catch(() => {}),
      );
    try {
      const outcome = await committed;
      if (!outcome.ok) {
        if (outcome.reason === "too_late")
          this.dependencies.logger.warn(
            { tradeId },
            "a trade was refused: its room would have stopped waiting for it",
          );
        const { reason } = outcome;
        return {
          ok: false,
          reason: reason === "insufficient_items" || reason === "inventory_full" ? reason : "commit_failed",
        };
      }
      return { ok: true };
    } finally {
      for (const id of ids) {
        this.commits.delete(id);
        if (world.has(id)) world.setBusy(id, undefined);
      }
      // The tick that waited for them steps once none is left, then the trades that waited for it.
      if (this.commits.size === 0) room.commitsDone();
    }
  }

  /**
   * A swap whose transaction failed without a refusal (its connection lost at the commit, say) may have
   * committed all the same: its history row says whether it did, and the stored inventories are then the
   * world's. When the database cannot say either, the next tick writes both inventories again, in one
   * transaction with the removal of its history row: the database then holds the world's (the trade
   * undone, if it had committed), and never one side's without the other's. Still asked while the tick
   * waits, so nothing else has changed them.
   */
  private async outcomeInDoubt(
    tradeId: string,
    a: TradeParticipant,
    b: TradeParticipant,
    error: unknown,
  ): Promise<
    | { ok: true; inventoryA: InventoryEntry[]; inventoryB: InventoryEntry[] }
    | { ok: false; reason: "conflict" }
  > {
    if (error instanceof WorldSupersededError) throw error;
    const { logger, repository, saves } = this.dependencies;
    logger.error({ err: error, tradeId }, "a trade's transaction failed: asking whether it committed");
    try {
      const stored = await repository.inventoriesIfCompleted({ tradeId, a, b });
      if (stored) return { ok: true, inventoryA: stored[0], inventoryB: stored[1] };
    } catch (doubt) {
      logger.error(
        { err: doubt, tradeId },
        "whether a trade committed is unknown: its players' inventories are written again",
      );
      saves.undoTrade(tradeId, [a.characterId, b.characterId]);
    }
    return { ok: false, reason: "conflict" };
  }

  /**
   * Writes what failed tick writes left unsaved, so that the database holds what the world holds: a
   * swap read from a database left behind would undo what the players did since (an item dropped while
   * the write failed would be back in the inventory, and on the ground too). False if it failed again.
   */
  private async catchUpFailedWrites(): Promise<boolean> {
    try {
      await this.dependencies.persistence.saveCaughtUp();
      return true;
    } catch (error) {
      if (error instanceof WorldSupersededError) throw error;
      this.dependencies.logger.error(
        { err: error },
        "saving the world before a trade failed; the trade is refused",
      );
      return false;
    }
  }
}
