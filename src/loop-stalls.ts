/**
 * Watches this process's event loop for stalls (a SIGSTOP, a machine that froze it): what reached the
 * process meanwhile waited unread in the kernel, and is handled on resuming as if it had just come.
 */
export class LoopStalls {
  private lastTurn = performance.now();
  private lastStall = { from: Number.NEGATIVE_INFINITY, to: Number.NEGATIVE_INFINITY };
  private readonly timer: NodeJS.Timeout;

  /** A pause of the loop longer than `stallMs` counts as a stall; the loop is looked at every `everyMs`. */
  constructor(
    private readonly stallMs = 500,
    everyMs = 100,
  ) {
    this.timer = setInterval(() => this.turn(), everyMs).unref();
  }

  /**
   * The earliest moment something handled now may have reached the process (performance.now() time): the
   * start of a stall that is ending, or just ended, and now otherwise.
   */
  earliestArrival(): number {
    const now = performance.now();
    // Resumed from a stall: the sockets it left unread are read before the timers catch up, or just after.
    if (now - this.lastTurn > this.stallMs) return this.lastTurn;
    if (now - this.lastStall.to < this.stallMs) return this.lastStall.from;
    return now;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private turn(): void {
    const now = performance.now();
    if (now - this.lastTurn > this.stallMs) this.lastStall = { from: this.lastTurn, to: now };
    this.lastTurn = now;
  }
}
