import type { CharacterRepository, CharacterSave } from "../db/characters.js";
import type { Logger } from "../logger.js";

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

  /** Queues the saves as one transaction; resolves once it has committed, rejects if it failed. */
  write(saves: readonly CharacterSave[]): Promise<void> {
    if (saves.length === 0) return this.chain;
    const write = this.chain.then(() => this.characters.saveMany(saves));
    // The chain goes on after a failure; the failed write's caller decides what to do.
    this.chain = write.catch((error: unknown) => {
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

  /** Runs other database work (a trade's swap) in the same order as the writes: after all queued so far. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.chain.then(task);
    this.chain = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /** Resolves when every write queued so far has finished. */
  flush(): Promise<void> {
    return this.chain;
  }

  /** Resolves when the last write of this character has finished (at once when none is pending). */
  settled(characterId: string): Promise<void> {
    return this.lastWrite.get(characterId) ?? Promise.resolve();
  }
}
