// When an agent decides: on the world's ticks, as its world:update messages number them, so that the
// same world (same seed, same ticks) sees the same decisions whatever the machine's speed. A wall-clock
// timer only covers a view where nothing changes (the world then sends no update).

/** With no world:update for this many ticks' time, the agent decides anyway. */
const QUIET_TICKS = 5;

export class DecisionClock {
  private lastTick: number | undefined;
  private heldUntil: number | undefined;
  private lastUpdateAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly everyTicks: number,
    private readonly tickMs: number,
    private readonly decide: () => void,
  ) {}

  start(): void {
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

  /** A world:update of tick `tick` arrived. */
  tick(tick: number): void {
    this.lastUpdateAt = Date.now();
    if (this.heldUntil !== undefined) {
      if (tick < this.heldUntil) return;
      this.heldUntil = undefined;
    }
    if (this.lastTick !== undefined && tick - this.lastTick < this.everyTicks) return;
    this.lastTick = tick;
    this.decide();
  }

  private held(): boolean {
    return this.heldUntil !== undefined;
  }
}
