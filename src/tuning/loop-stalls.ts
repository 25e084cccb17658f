/**
 * Watches this process's event loop for stalls (a SIGSTOP, a paused machine): what reached the process
 * meanwhile waited unread in the kernel, and is handled on resuming as if it had just come.
 */
export class LoopStalls {
  private lastTurn = performance.now();
  private lastStall = { from: Number.NEGATIVE_INFINITY, to: Number.NEGATIVE_INFINITY };
  /** Turns of the loop since the last stall ended. */
  private turnsSinceStall = Number.POSITIVE_INFINITY;
  /** How long the loop has stood still in all, in stalls that ended. */
  private stalledMs = 0;
  private readonly timer: NodeJS.Timeout;

  /** A pause of the loop longer than `stallMs` counts as a stall; the loop is looked at every `everyMs`. */
  constructor(
    private readonly stallMs = 500,
    everyMs = 100,
  ) {
    this.timer = setInterval(() => this.turn(), everyMs).unref();
  }

  /**
   * Marks something handled now (a request): how long it may have waited unread in a stall that is
   * ending, or just ended, and the stalls counted so far.
   */
  mark(): StallMark {
    const now = performance.now();
    // Resumed from a stall: the sockets it left unread are read before the timers catch up (the stall
    // is not counted yet, and will be), or just after.
    const ending = now - this.lastTurn;
    if (ending > this.stallMs) return { waitedMs: ending, stalledMs: this.stalledMs + ending };
    // Just ended: within `stallMs`, or within a few turns of a loop that a busy machine slows down, so
    // that the sockets it left unread may still be coming in.
    if (now - this.lastStall.to < this.stallMs || this.turnsSinceStall < JUST_ENDED_TURNS)
      return { waitedMs: now - this.lastStall.from, stalledMs: this.stalledMs };
    return { waitedMs: 0, stalledMs: this.stalledMs };
  }

  /** How long what was marked has waited while the loop stood still: before it was read, and since. */
  stalledFor(mark: StallMark): number {
    return mark.waitedMs + Math.max(0, this.stalledMs - mark.stalledMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private turn(): void {
    const now = performance.now();
    if (now - this.lastTurn > this.stallMs) {
      this.lastStall = { from: this.lastTurn, to: now };
      this.stalledMs += now - this.lastTurn;
      this.turnsSinceStall = 0;
    } else {
      this.turnsSinceStall++;
    }
    this.lastTurn = now;
  }
}

/** The turns after a stall during which what is handled may have waited through it. */
const JUST_ENDED_TURNS = 3;

export interface StallMark {
  waitedMs: number;
  stalledMs: number;
}
