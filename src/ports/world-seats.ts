/** Who a room client is: stored as `client.auth`. */
export interface PlayerAuth {
  accountId: string;
  characterId: string;
  characterName: string;
  /** The identity's key (see Identity.subject): a login during a database outage finds its seat by it. */
  subject: string;
  /** The client's address: its authentication attempts are counted under it. */
  ip: string | undefined;
  /** Until when (epoch milliseconds) an admin muted the account; an admin's /mute and /unmute change it live. */
  mutedUntil: number | null;
  /** Until when an admin banned the account: a login taking this seat from memory is refused until then. */
  bannedUntil: number | null;
}

/**
 * Finds the seat an identity holds in the world: as `characterId`, or, unnamed, the character it plays
 * there (an account plays one at a time but for rare exceptions; then any of them).
 */
export type SeatFinder = (subject: string, characterId: string | undefined) => PlayerAuth | undefined;

/**
 * The seats of the world running in this process, by identity: a login (a player coming back to its
 * kept seat, a trade's room) that the database cannot answer during an outage is let in from here.
 */
export class WorldSeats {
  private readonly finders = new Set<SeatFinder>();

  /** A world opened here answers through `finder` until it calls the returned function. */
  serve(finder: SeatFinder): () => void {
    this.finders.add(finder);
    return () => this.finders.delete(finder);
  }

  /** The identity's seat (as `characterId` when named), when a world here holds that character for it. */
  of(subject: string, characterId: string | undefined): PlayerAuth | undefined {
    for (const finder of this.finders) {
      const seat = finder(subject, characterId);
      if (seat) return seat;
    }
    return undefined;
  }
}
