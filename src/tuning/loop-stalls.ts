/** The CPU time this process has used, in milliseconds (all its threads). */
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Watches this process's event loop for stalls (a SIGSTOP, a paused machine): what reached the process
 * meanwhile waited unread in the kernel, and is handled on resuming as if it had just come. A pause is
 * counted as far as the process did not run in it: one it spent at work of its own (a long query of the
 * embedded database, which runs on this thread) is no stall, as its clients were not left waiting for
 * a process that had stopped.
 */
export class LoopStalls {
  private lastTurn = performance.now();
  private lastCpu: number;
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
    /** The process's CPU time (see processCpuMs); a test stands in for a stopped process with its own. */
    private readonly cpuMs: () => number = processCpuMs,
  ) {
    this.lastCpu = cpuMs();
    this.timer = setInterval(() => this.turn(), everyMs).unref();
  }

  /** How long the process stood still since the last turn: the time it did not run. */
  private stoodSince(now: number): number {
    return now - this.lastTurn - (this.cpuMs() - this.lastCpu);
  }

  /**
   * Marks something handled now (a request): how long it may have waited unread in a stall that is
   * ending, or just ended, and the stalls counted so far.
   */
  mark(): StallMark {
    const now = performance.now();
    // Resumed from a stall: the sockets it left unread are read before the timers catch up (the stall
    // is not counted yet, and will be), or just after.
    const ending = this.stoodSince(now);
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
    const stood = this.stoodSince(now);
    if (stood > this.stallMs) {
      this.lastStall = { from: now - stood, to: now };
      this.stalledMs += stood;
      this.turnsSinceStall = 0;
    } else {
      this.turnsSinceStall++;
    }
    this.lastTurn = now;
    this.lastCpu = this.cpuMs();
  }
}

/** The turns after a stall during which what is handled may have waited through it. */
const JUST_ENDED_TURNS = 3;

export interface StallMark {
  waitedMs: number;
  stalledMs: number;
}
