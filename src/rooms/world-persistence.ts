import { setTimeout as sleep } from "node:timers/promises";
import type { CharacterSave } from "../db/characters.js";
import { isEmptyWrite, type WorldStore, type WorldWrite } from "../db/world-store.js";
import type { Logger } from "../logger.js";

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

  constructor(
    private readonly store: WorldStore,
    private readonly logger: Logger,
  ) {}

  /** Queues a tick's write as one transaction; resolves once it has committed, rejects if it failed. */
  write(write: WorldWrite): Promise<void> {
    return this.enqueue(write, false);
  }

  /**
   * Queues departing players' last states, which the world no longer holds: a failed attempt is tried
   * again with backoff before the write is given up.
   */
  writeFinal(characters: readonly CharacterSave[]): Promise<void> {
    return this.enqueue({ characters }, true);
  }

  private enqueue(write: WorldWrite, final: boolean): Promise<void> {
    if (isEmptyWrite(write)) return this.chain;
    const { characters } = write;
    const written = final ? this.saveWithRetries(write) : this.run(() => this.store.save(write));
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
  private async saveWithRetries(write: WorldWrite): Promise<void> {
    for (const delay of FINAL_WRITE_BACKOFF_MS) {
      try {
        return await this.run(() => this.store.save(write));
      } catch (error) {
        this.logger.warn({ err: error, retryInMs: delay }, "saving departing characters failed; retrying");
        await sleep(delay);
      }
    }
    return this.run(() => this.store.save(write));
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
