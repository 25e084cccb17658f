import { setTimeout as sleep } from "node:timers/promises";
import type { CharacterSave } from "../db/characters.js";
import { WorldSupersededError, type WriteFence } from "../db/world-lease.js";
import { isEmptyWrite, type WorldStore, type WorldWrite } from "../db/world-store.js";
import type { Logger } from "../logger.js";

/** What failed writes left unsaved (TickSaves): its parts as the world holds them now. */
export interface UnsavedWrites {
  leftUnsaved(): WorldWrite;
  /** A write of them failed: they are left unsaved again. */
  failed(write: WorldWrite): void;
}

/** Waits between the attempts of a write that must not be lost (a departing player's last state). */
const FINAL_WRITE_BACKOFF_MS = [250, 1000, 4000, 15000];

/**
 * The WorldRoom's writes, in order: each tick's changes (characters and ground) in one transaction, and
 * departing players' final saves. Writes never overlap, so a later state can never be overwritten by an
 * earlier one.
 */
export class WorldPersistence {
  private chain: Promise<void> = Promise.resolve();
  /** The last write that includes each character: a new session waits for it before loading. */
  private readonly lastWrite = new Map<string, Promise<void>>();
  /**
   * Departures queued last in the chain and not yet being written: later ones join them, so that many
   * players leaving at once (a load balancer restarting) are saved in one transaction, not one each.
   * Anything queued after them closes them: it could hold an earlier state of a player who leaves later,
   * and would then write over that player's final one.
   */
  private openDepartures: { characters: CharacterSave[]; written: Promise<void> } | undefined;

  /** Set once a write found the world replaced: nothing more is written. */
  private superseded: WorldSupersededError | undefined;
  private readonly fence: WriteFence | undefined;
  private readonly finalWriteBackoffMs: readonly number[];
  private readonly onSuperseded: (error: WorldSupersededError) => void;
  private readonly unsaved: UnsavedWrites | undefined;

  constructor(
    private readonly store: WorldStore,
    private readonly logger: Logger,
    options: {
      /** Checked first in every transaction: the world's lease (see WorldLease). */
      fence?: WriteFence;
      /** Told once, when a transaction finds that another world holds the lease. */
      onSuperseded?: (error: WorldSupersededError) => void;
      finalWriteBackoffMs?: readonly number[];
      /** Written with each attempt of a departure (see `saveCaughtUp`). */
      unsaved?: UnsavedWrites;
    } = {},
  ) {
    this.unsaved = options.unsaved;
    this.fence = options.fence;
    this.onSuperseded = options.onSuperseded ?? (() => {});
    this.finalWriteBackoffMs = options.finalWriteBackoffMs ?? FINAL_WRITE_BACKOFF_MS;
  }

  /** Queues a tick's write as one transaction; resolves once it has committed, rejects if it failed. */
  write(write: WorldWrite): Promise<void> {
    if (isEmptyWrite(write)) return this.chain;
    return this.track(
      write.characters,
      this.run(() => this.save(write)),
    );
  }

  /**
   * Checks the fence on its own, in turn with the writes: a world with nothing to write would otherwise
   * never find out that it was replaced.
   */
  checkFence(): Promise<void> {
    const fence = this.fence;
    return fence ? this.run(() => this.store.checkFence(fence)) : Promise.resolve();
  }

  /**
   * Queues departing players' last states, which the world no longer holds: a failed attempt is tried
   * again with backoff before the write is given up.
   */
  writeFinal(characters: readonly CharacterSave[]): Promise<void> {
    if (characters.length === 0) return this.chain;
    const open = this.openDepartures;
    if (open) {
      open.characters.push(...characters);
      this.track(characters, open.written);
      return open.written;
    }
    const departures = [...characters];
    const written = this.saveWithRetries(departures);
    this.openDepartures = { characters: departures, written };
    return this.track(characters, written);
  }

  /** Logs a failed write, and makes it the last write of its characters until it settles. */
  private track(characters: readonly CharacterSave[], written: Promise<void>): Promise<void> {
    written.catch((error: unknown) => {
      this.logger.error({ err: error, characters: characters.length }, "saving the world failed");
    });
    for (const { state } of characters) {
      const settled = written.catch(() => {});
      this.lastWrite.set(state.id, settled);
      settled.then(() => {
        if (this.lastWrite.get(state.id) === settled) this.lastWrite.delete(state.id);
      });
    }
    return written;
  }

  /**
   * Each attempt takes its place in the chain anew, and the wait between attempts is outside it: ticks
   * and trades go on meanwhile. They cannot write these characters, which have left the world; a new
   * session of one waits for `settled` before it loads.
   */
  private async saveWithRetries(departures: CharacterSave[]): Promise<void> {
    try {
      return await this.run(() => {
        // Its first attempt closes the departures: what leaves from now on goes into another write.
        if (this.openDepartures?.characters === departures) this.openDepartures = undefined;
        return this.saveCaughtUp(departures);
      });
    } catch (error) {
      if (departures.length === 1) return await this.retry(departures, error);
      // One state that cannot be written must not cost the others theirs: each is tried on its own.
      const outcomes = await Promise.allSettled(departures.map((one) => this.retry([one], error)));
      const failed = outcomes.find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
    }
  }

  private async retry(characters: readonly CharacterSave[], firstError: unknown): Promise<void> {
    let error = firstError;
    for (const delay of this.finalWriteBackoffMs) {
      // Replaced, the world may write nothing, however long it tries.
      if (error instanceof WorldSupersededError) break;
      this.logger.warn({ err: error, retryInMs: delay }, "saving departing characters failed; retrying");
      await sleep(delay);
      try {
        return await this.run(() => this.saveCaughtUp(characters));
      } catch (next) {
        error = next;
      }
    }
    throw error;
  }

  /**
   * One transaction of `characters` and of what failed writes left unsaved, as the world holds it at
   * this attempt (left unsaved again if it fails). Departures are written so: ahead of what failed, a
   * departure (an inventory without the item its player dropped) could commit while the item's ground
   * row never did, and a crash then would lose the item. Outside this class, only from within a task of
   * `run` (a trade's catch-up write).
   */
  async saveCaughtUp(characters: readonly CharacterSave[] = []): Promise<void> {
    const behind = this.unsaved?.leftUnsaved();
    try {
      await this.save({ characters: [...characters, ...(behind?.characters ?? [])], ground: behind?.ground });
    } catch (error) {
      if (behind) this.unsaved?.failed(behind);
      throw error;
    }
  }

  /** One transaction of the world's writes, behind its fence, in turn with the others when in `run`. */
  private save(write: WorldWrite): Promise<void> {
    return this.store.save(write, this.fence);
  }

  /** Runs other database work (a trade's swap) in the same order as the writes: after all queued so far. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.openDepartures = undefined;
    const result = this.chain.then(() => {
      if (this.superseded) throw this.superseded;
      return task();
    });
    this.chain = result.then(
      () => {},
      (error: unknown) => {
        if (!(error instanceof WorldSupersededError) || this.superseded) return;
        this.superseded = error;
        this.onSuperseded(error);
      },
    );
    return result;
  }

  /** Resolves when every write queued so far has finished, final writes still being retried included. */
  async flush(): Promise<void> {
    await Promise.all([this.chain, ...this.lastWrite.values()]);
  }

  /** Resolves when the last write of this character has finished (at once when none is pending). */
  settled(characterId: string): Promise<void> {
    return this.lastWrite.get(characterId) ?? Promise.resolve();
  }
}
