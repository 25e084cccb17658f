import { setTimeout as sleep } from "node:timers/promises";
import type { CharacterRepository, CharacterSave } from "../db/characters.js";
import type { Logger } from "../logger.js";

/** Waits between the attempts of a write that must not be lost (a departing player's last state). */
const FINAL_WRITE_BACKOFF_MS = [250, 1000, 4000, 15000];

/**
 * The WorldRoom's writes, in order: each tick's changes in one transaction, and departing players'
 * final saves. Writes never overlap, so a later state can never be overwritten by an earlier one.
 */
export class WorldPersistence {
  private chain: Promise<void> = Promise.resolve();
  /** The last write that includes each character: a new session waits for it before loading. */
  private readonly lastWrite = new Map<string, Promise<void>>();

  constructor(
    private readonly characters: CharacterRepository,
    private readonly logger: Logger,
  ) {}

  /**
   * Queues the saves as one transaction; resolves once it has committed, rejects if it failed.
   * A `final` write (the world no longer holds that state) is tried again with backoff first.
   */
  write(saves: readonly CharacterSave[], { final = false } = {}): Promise<void> {
    if (saves.length === 0) return this.chain;
    const write = final ? this.saveWithRetries(saves) : this.run(() => this.characters.saveMany(saves));
    write.catch((error: unknown) => {
      this.logger.error({ err: error, characters: saves.length }, "saving characters failed");
    });
    for (const { state } of saves) {
      const settled = write.catch(() => {});
      this.lastWrite.set(state.id, settled);
      settled.then(() => {
        if (this.lastWrite.get(state.id) === settled) this.lastWrite.delete(state.id);
      });
    }
    return write;
  }

  /**
   * Each attempt takes its place in the chain anew, and the wait between attempts is outside it: ticks
   * and trades go on meanwhile. They cannot write these characters, which have left the world; a new
   * session of one waits for `settled` before it loads.
   */
  private async saveWithRetries(saves: readonly CharacterSave[]): Promise<void> {
    for (const delay of FINAL_WRITE_BACKOFF_MS) {
      try {
        return await this.run(() => this.characters.saveMany(saves));
      } catch (error) {
        this.logger.warn({ err: error, retryInMs: delay }, "saving departing characters failed; retrying");
        await sleep(delay);
      }
    }
    return this.run(() => this.characters.saveMany(saves));
  }

  /** Runs other database work (a trade's swap) in the same order as the writes: after all queued so far. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.chain.then(task);
    this.chain = result.then(
      () => {},
      () => {},
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
