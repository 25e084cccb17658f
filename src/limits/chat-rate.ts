/** The window a chat rate is counted over. */
const WINDOW_MS = 1000;
/** How often the records of players who stopped talking are let go. */
const SWEEP_MS = 10_000;

/** The refusal of a line over the chat rate: told to its sender alone, the line said to no one. */
export function chatRateRefusal(perSecond: number) {
  return {
    code: "rate_limited",
    message: `Too many chat lines: at most ${perSecond} a second. This line was not said.`,
  } as const;
}

/**
 * Each player's chat rate: at most `perSecond` lines in any one second. Every line said goes to everyone
 * in view, so the message limit alone would let one player have the server send sixty lines a second to
 * each of its neighbours. Kept by player, not by connection: logging in again does not start afresh.
 */
export class ChatRates {
  /** When each player's last `perSecond` lines were said, oldest first. */
  private readonly said = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(readonly perSecond: number) {}

  /** Counts a line of `playerId` said at `now`; false, and not counted, when it would pass the rate. */
  admit(playerId: string, now = Date.now()): boolean {
    if (now - this.lastSweep >= SWEEP_MS) this.sweep(now);
    let times = this.said.get(playerId);
    if (!times) {
      times = [];
      this.said.set(playerId, times);
    }
    if (times.length >= this.perSecond && now - times[0]! < WINDOW_MS) return false;
    times.push(now);
    if (times.length > this.perSecond) times.shift();
    return true;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [playerId, times] of this.said)
      if (now - times.at(-1)! >= WINDOW_MS) this.said.delete(playerId);
  }
}
