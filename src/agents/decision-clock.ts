// When an agent decides: on the world's ticks, as its world:update messages number them, so that the
// same world (same seed, same ticks) sees the same decisions whatever the machine's speed. A view where
// nothing changes gets no update: a wall-clock timer covers it, or, paced by the world's ticks (the
// exam's lockstep), the ticks it is told of.

/** With no world:update for this many ticks' time, the agent decides anyway. */
const QUIET_TICKS = 5;

export class DecisionClock {
  private lastTick: number | undefined;
  private heldUntil: number | undefined;
  private lastUpdateAt = 0;
  /** The tick of its latest update or quiet decision (see quiet). */
  private lastHeardTick: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pacedByTicks = false;

  constructor(
    private readonly everyTicks: number,
    private readonly tickMs: number,
    private readonly decide: () => void,
  ) {}

  start(): void {
    if (this.pacedByTicks) return;
    this.timer ??= setInterval(() => {
      if (!this.held() && Date.now() - this.lastUpdateAt >= QUIET_TICKS * this.tickMs) this.decide();
    }, QUIET_TICKS * this.tickMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * No decision before world tick `tick` (Infinity: until told otherwise); the first comes on that tick,
   * then every `everyTicks` from it. For a run to be repeated: every agent starts on the same tick.
   */
  holdUntil(tick: number): void {
    this.heldUntil = tick;
    this.lastTick = undefined;
  }

  /** No wall-clock timer: quiet ticks are told by `quiet` alone. */
  paceByTicks(): void {
    this.pacedByTicks = true;
    this.stop();
  }

  /** World tick `tick` passed: with no update for QUIET_TICKS ticks, it decides anyway. */
  quiet(tick: number): void {
    if (this.held() || within(this.lastHeardTick, tick, QUIET_TICKS)) return;
    this.lastHeardTick = tick;
    this.decide();
  }

  /** A world:update of tick `tick` arrived. */
  tick(tick: number): void {
    this.lastUpdateAt = Date.now();
    this.lastHeardTick = tick;
    if (this.heldUntil !== undefined) {
      if (tick < this.heldUntil) return;
      this.heldUntil = undefined;
    }
    if (within(this.lastTick, tick, this.everyTicks)) return;
    this.lastTick = tick;
    this.decide();
  }

  private held(): boolean {
    return this.heldUntil !== undefined;
  }
}

/**
 * Whether `tick` comes less than `ticks` after `last`. A tick before it is another world's count (the
 * world restarted, or reopened on another process, and counts from 0 again): a fresh start, not a wait
 * until the new count passes the old one.
 */
function within(last: number | undefined, tick: number, ticks: number): boolean {
  return last !== undefined && tick >= last && tick - last < ticks;
}
