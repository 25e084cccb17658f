import { ServerError } from "@colyseus/core";
import { within } from "../limits/time-limit.js";
import { databaseUnavailable } from "./room-auth.js";
import { releaseFromWorld } from "./world-claims.js";
import type { SessionParts } from "./world-sessions.js";

/** How long a login waits for the write of its character's last session (see lastSessionSaved). */
const LAST_SESSION_WAIT_MS = 10_000;

type ArrivalParts = Pick<SessionParts, "runtime" | "worldId" | "epoch" | "world" | "persistence">;

/**
 * Characters loaded into the world for their logins: after their last session's write, with the world's
 * claim on them recorded (a character last in another world is let go there first), once however many
 * logins wait for it.
 */
export class CharacterArrivals {
  /** Characters being loaded: a second login meanwhile waits for the same load. */
  private readonly loading = new Map<string, Promise<readonly string[]>>();
  /** Names given to characters while they were loaded (see rename). */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly parts: ArrivalParts,
    /** Whether a session still wants the character in the world once it is loaded. */
    private readonly wanted: (characterId: string) => boolean,
  ) {}

  /**
   * Loads a character into the world for the logins waiting for it. A new session starts from the state
   * its previous session saved, so it waits for that save first. A character that no session wants any
   * more by then stays out.
   */
  arrive(characterId: string): Promise<readonly string[]> {
    const { runtime, world } = this.parts;
    let arrival = this.loading.get(characterId);
    if (!arrival) {
      arrival = (async () => {
        await this.lastSessionSaved(characterId);
        const tradesEnded = await this.claim(characterId);
        const character = await this.stored(() => runtime.characters.load(characterId));
        if (!character) throw new Error(`character ${characterId} vanished`);
        // A login in another world since this one's claim took the character there: it stays out here.
        if ((await this.stored(() => runtime.characters.worldOf(characterId))) !== this.parts.worldId)
          throw new ServerError(409, "this character logged in to another world meanwhile");
        if (this.wanted(characterId) && !world.has(characterId)) {
          world.join(character);
          const renamed = this.names.get(characterId);
          if (renamed !== undefined) world.rename(characterId, renamed);
        }
        return tradesEnded;
      })().finally(() => {
        this.loading.delete(characterId);
        this.names.delete(characterId);
      });
      this.loading.set(characterId, arrival);
    }
    return arrival;
  }

  /**
   * A character renamed while it is loaded: it may have been read with its old name, so the new one is
   * given once it is in the world. False when it is not being loaded.
   */
  rename(characterId: string, name: string): boolean {
    if (!this.loading.has(characterId)) return false;
    this.names.set(characterId, name);
    return true;
  }

  /**
   * Records that the character arrives in this world; when it last arrived in another, that world lets
   * it go first (see releaseFromWorld), so it is loaded here with what it did there: the trades that
   * ended there unheard by the player.
   */
  private async claim(characterId: string): Promise<readonly string[]> {
    const { runtime, worldId, epoch } = this.parts;
    const previous = await this.stored(() => runtime.characters.arriveIn(characterId, worldId, epoch));
    if (previous === null) return [];
    try {
      return await releaseFromWorld(previous, characterId, runtime.worldLeases);
    } catch (error) {
      // The character stays there: the next login here must ask that world again.
      await runtime.characters.returnTo(characterId, worldId, previous).catch(() => {});
      throw error;
    }
  }

  /** A read or write of the characters' rows, refused as the database being unavailable when it fails. */
  private stored<T>(work: () => Promise<T>): Promise<T> {
    return work().catch((error: unknown) => {
      throw databaseUnavailable(this.parts.runtime, error);
    });
  }

  /**
   * Waits for the write of the character's last session (its departure). While the database refuses
   * it the login is refused too: loaded from what is stored, the character would have its items twice
   * or not at all.
   */
  private async lastSessionSaved(characterId: string): Promise<void> {
    const saved = this.parts.persistence.settled(characterId).then(() => false);
    if (!(await within(saved, LAST_SESSION_WAIT_MS, true))) return;
    this.parts.runtime.logger.warn(
      { characterId },
      "a login waited too long for its last session's write: refused",
    );
    throw new ServerError(503, "this character's last session is not saved yet; try again shortly");
  }
}
