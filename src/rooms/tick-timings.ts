import type { Logger } from "../telemetry/logger.js";
import { recordTick } from "../telemetry/metrics.js";

/**
 * Each tick's phases go to the metrics; a tick that took longer than its budget is logged with them, so
 * the slow phase is visible.
 */
export class TickTimings {
  constructor(
    private readonly budgetMs: number,
    private readonly logger: Logger,
  ) {}

  record(tick: number, phaseMs: Readonly<Record<string, number>>): void {
    recordTick(phaseMs);
    let total = 0;
    for (const ms of Object.values(phaseMs)) total += ms;
    if (total <= this.budgetMs) return;
    const phases = Object.entries(phaseMs).map(([phase, ms]) => `${phase} ${ms.toFixed(1)}`);
    this.logger.warn(
      { tick, totalMs: total, phaseMs },
      `slow tick ${tick}: ${total.toFixed(1)} ms (${phases.join(", ")})`,
    );
  }
}
