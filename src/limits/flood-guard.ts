import { CLOSE_FLOODING } from "../protocol/close-codes.js";

/** How long a client that passed the message rate stays blocked. */
export const FLOOD_BLOCK_MS = 5000;
const WINDOW_MS = 1000;

export type FloodVerdict =
  /** Handle the message. */
  | "accept"
  /** The limit was just passed: tell the client (error rate_limited) and drop the message. */
  | "limited"
  /** Blocked: drop the message silently. */
  | "drop"
  /** Still flooding while blocked: close the connection. */
  | "close";

/** The protocol's answer to the first message over the limit. */
export const RATE_LIMITED = { code: "rate_limited", message: "Too many messages: wait a few seconds." };

/**
 * The interface's message limit: more than `perSecond` messages within any one second blocks the
 * sender for FLOOD_BLOCK_MS; sending another `perSecond` messages during the block closes it.
 */
export class FloodGuard {
  /**
   * When the last `perSecond` accepted messages came, as a ring: the slot about to be overwritten holds
   * the oldest. Counting in fixed one-second blocks instead would let twice the limit through across
   * the end of a block.
   */
  private readonly recent: Float64Array;
  private oldest = 0;
  private blockedUntil = 0;
  private droppedWhileBlocked = 0;

  constructor(private readonly perSecond: number) {
    this.recent = new Float64Array(perSecond).fill(Number.NEGATIVE_INFINITY);
  }

  check(now: number): FloodVerdict {
    if (now < this.blockedUntil) {
      this.droppedWhileBlocked++;
      return this.droppedWhileBlocked > this.perSecond ? "close" : "drop";
    }
    if (now - this.recent[this.oldest]! < WINDOW_MS) {
      this.blockedUntil = now + FLOOD_BLOCK_MS;
      this.droppedWhileBlocked = 0;
      return "limited";
    }
    this.recent[this.oldest] = now;
    this.oldest = (this.oldest + 1) % this.perSecond;
    return "accept";
  }

  /** Neither blocked nor holding a message of the last second: a new guard would judge the same. */
  isIdle(now: number): boolean {
    const newest = this.recent[(this.oldest + this.perSecond - 1) % this.perSecond]!;
    return now >= this.blockedUntil && now - newest >= WINDOW_MS;
  }
}

/** How often idle guards are let go. */
const SWEEP_MS = 10_000;

/**
 * Each player's guard, whatever connection its messages come through: a client that reconnects (or
 * logs in again, or opens its trade) is still counted, and still blocked, rather than starting afresh.
 */
export class FloodGuards {
  private readonly guards = new Map<string, FloodGuard>();
  private lastSweep = 0;

  constructor(private readonly perSecond: number) {}

  of(playerId: string, now = Date.now()): FloodGuard {
    if (now - this.lastSweep >= SWEEP_MS) this.sweep(now);
    let guard = this.guards.get(playerId);
    if (!guard) {
      guard = new FloodGuard(this.perSecond);
      this.guards.set(playerId, guard);
    }
    return guard;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [playerId, guard] of this.guards) if (guard.isIdle(now)) this.guards.delete(playerId);
  }
}

/** What a flooding client is told and closed through. */
interface FloodedClient {
  leave(code?: number, reason?: string): void;
}

/**
 * Counts one message of `client` and acts on the verdict: the first message over the limit is answered
 * through `refuse`, a client flooding through its block is closed. True when the message is handled.
 */
export function admitMessage(
  guard: FloodGuard,
  client: FloodedClient,
  refuse: (error: typeof RATE_LIMITED) => void,
): boolean {
  const verdict = guard.check(Date.now());
  if (verdict === "close") client.leave(CLOSE_FLOODING, "flooding");
  if (verdict === "limited") refuse(RATE_LIMITED);
  return verdict === "accept";
}
