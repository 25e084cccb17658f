/** How long a client that passed the message rate stays blocked. */
export const FLOOD_BLOCK_MS = 5000;
/** Close code for a client that keeps flooding through its block. */
export const CLOSE_FLOODING = 4429;

export type FloodVerdict =
  /** Handle the message. */
  | "accept"
  /** The limit was just passed: tell the client (error rate_limited) and drop the message. */
  | "limited"
  /** Blocked: drop the message silently. */
  | "drop"
  /** Still flooding while blocked: close the connection. */
  | "close";

/**
 * SPEC's per-connection message limit: more than `perSecond` messages within one second blocks the
 * sender for FLOOD_BLOCK_MS; sending another `perSecond` messages during the block closes it.
 */
export class FloodGuard {
  private windowStart = 0;
  private inWindow = 0;
  private blockedUntil = 0;
  private droppedWhileBlocked = 0;

  constructor(private readonly perSecond: number) {}

  check(now: number): FloodVerdict {
    if (now < this.blockedUntil) {
      this.droppedWhileBlocked++;
      return this.droppedWhileBlocked > this.perSecond ? "close" : "drop";
    }
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.inWindow = 0;
    }
    this.inWindow++;
    if (this.inWindow <= this.perSecond) return "accept";
    this.blockedUntil = now + FLOOD_BLOCK_MS;
    this.droppedWhileBlocked = 0;
    return "limited";
  }
}
