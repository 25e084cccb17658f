import { TICKS_PER_MINUTE } from "../game/types.js";
import type { World } from "../game/world.js";

/** The longest a player stays in the world after its session ended in a fight. */
export const COMBAT_LOGOUT_LIMIT_TICKS = TICKS_PER_MINUTE;

interface Lingering {
  /** The tick it leaves at, in a fight or not: a minute after its latest logout. */
  deadline: number;
  /** The departures waiting for it (a new session may have come and gone meanwhile). */
  readonly releases: (() => void)[];
}

/**
 * Players whose session ended while a monster fought them: they stay in the world, unseen by their
 * session and fighting back as an idle player does, until the fight is over (World.inCombat) or a minute
 * has passed, and only then leave. Logging out must not save a player from a death it was about to die.
 */
export class CombatLogouts {
  private readonly lingering = new Map<string, Lingering>();
  private closing = false;

  constructor(private readonly world: World) {}

  /**
   * Keeps a player whose session ended in a fight until the fight is over, then runs `leave`. False, and
   * nothing kept, when it may leave now: it is not in a fight, or the world is closing.
   */
  keep(playerId: string, leave: () => void): boolean {
    if (this.closing || !this.world.has(playerId) || !this.world.inCombat(playerId)) return false;
    const deadline = this.world.tick + COMBAT_LOGOUT_LIMIT_TICKS;
    const lingering = this.lingering.get(playerId);
    if (!lingering) {
      this.lingering.set(playerId, { deadline, releases: [leave] });
      return true;
    }
    // Logged in again and out again in the same fight: the minute counts from this logout, or logging
    // out just before the first one's end would let it escape the fight.
    lingering.deadline = Math.max(lingering.deadline, deadline);
    lingering.releases.push(leave);
    return true;
  }

  /** After each world step: lets go of the players out of their fight, or lingering long enough. */
  afterTick(): void {
    for (const [playerId, { deadline, releases }] of this.lingering) {
      const free = !this.world.has(playerId) || !this.world.inCombat(playerId) || this.world.tick >= deadline;
      if (!free) continue;
      this.lingering.delete(playerId);
      for (const release of releases) release();
    }
  }

  /** The world is closing: everyone leaves now, and from now on at once. */
  releaseAll(): void {
    this.closing = true;
    for (const { releases } of this.lingering.values()) for (const release of releases) release();
    this.lingering.clear();
  }
}
