import type { Logger } from "../logger.js";

const KEPT_TICKS = 1000;

export interface PhaseSummary {
  p50: number;
  p99: number;
  max: number;
}

/**
 * How long each phase of the recent ticks took. A tick longer than its budget is logged with its
 * phases, so the slow one is visible; `summary()` gives percentiles for benchmarks and operators.
 */
export class TickTimings {
  private readonly samples = new Map<string, number[]>();
  private next = 0;
  private count = 0;

  constructor(
    private readonly budgetMs: number,
    private readonly logger: Logger,
  ) {}

  record(tick: number, phaseMs: Readonly<Record<string, number>>): void {
    let total = 0;
    for (const [phase, ms] of Object.entries(phaseMs)) {
      this.ring(phase)[this.next] = ms;
      total += ms;
    }
    this.ring("total")[this.next] = total;
    this.next = (this.next + 1) % KEPT_TICKS;
    this.count = Math.min(this.count + 1, KEPT_TICKS);
    if (total > this.budgetMs) {
      const phases = Object.entries(phaseMs).map(([phase, ms]) => `${phase} ${ms.toFixed(1)}`);
      this.logger.warn(
        { tick, totalMs: total, phaseMs },
        `slow tick ${tick}: ${total.toFixed(1)} ms (${phases.join(", ")})`,
      );
    }
  }

  private ring(phase: string): number[] {
    let ring = this.samples.get(phase);
    if (!ring) {
      ring = new Array<number>(KEPT_TICKS).fill(0);
      this.samples.set(phase, ring);
    }
    return ring;
  }

  summary(): Record<string, PhaseSummary> {
    const result: Record<string, PhaseSummary> = {};
    for (const [phase, ring] of this.samples) {
      const sorted = ring.slice(0, this.count).sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      result[phase] = { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
    }
    return result;
  }
}
