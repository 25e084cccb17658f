// When accounts were last seen: an authenticated request or connection, or a player in the world. An
// anonymous owner long unseen loses its agents (see AgentManager), so squatted slots come free.
import type { AccountRepository } from "../db/accounts.js";
import type { Logger } from "../telemetry/logger.js";

/** Past this many remembered writes, the stale ones are forgotten (they would be written again anyway). */
const REMEMBERED_MAX = 10_000;

export class Sightings {
  /** When this process last wrote each account's sighting (ms). */
  private readonly written = new Map<string, number>();

  /**
   * `everyMs`: an account's sighting is written at most this often by this process; well under the
   * absence that removes agents, so that an owner who keeps being seen is never taken for gone.
   */
  constructor(
    private readonly accounts: Pick<AccountRepository, "markSeen">,
    private readonly everyMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Notes that the accounts were seen now. A failed write is logged, not thrown: the request or join
   * that saw them goes on, and the next sighting writes again.
   */
  async seen(accountIds: Iterable<string>): Promise<void> {
    const now = Date.now();
    const due = [...new Set(accountIds)].filter(
      (id) => now - (this.written.get(id) ?? -Infinity) >= this.everyMs,
    );
    if (due.length === 0) return;
    for (const id of due) this.written.set(id, now);
    if (this.written.size > REMEMBERED_MAX) this.forgetStale(now);
    try {
      await this.accounts.markSeen(due);
    } catch (error) {
      for (const id of due) this.written.delete(id);
      this.logger.warn({ err: error }, "noting that accounts were seen failed");
    }
  }

  private forgetStale(now: number): void {
    for (const [id, at] of this.written) if (now - at >= this.everyMs) this.written.delete(id);
  }
}

/** How often a sighting is written: a minute, or a quarter of the absence when that is shorter. */
export function sightingIntervalMs(absenceSeconds: number): number {
  return Math.min(60_000, (absenceSeconds * 1000) / 4);
}
