import type { CharacterSave } from "../../src/db/characters.js";
import type { WorldStore, WorldWrite } from "../../src/db/world-store.js";

/** What a test puts before the world's store: `save` writes `write` as the store would. */
type WriteInterceptor = (write: WorldWrite, save: () => Promise<CharacterSave[]>) => Promise<CharacterSave[]>;

/**
 * Puts `intercept` before every write of the world's store (a database that fails, refuses some writes
 * or is slow, as the test decides) until the returned function puts the store back.
 */
export function interceptWorldWrites(store: WorldStore, intercept: WriteInterceptor): () => void {
  const save = store.save;
  store.save = (write, fence, apart) => intercept(write, () => save.call(store, write, fence, apart));
  return () => {
    store.save = save;
  };
}
