// Anonymous accounts long unseen are deleted with their characters: a token the server signs lives an
// hour and is renewed only while valid, so past that nobody can sign in as them again, and every
// tokenless connection or anonymous sign-in would otherwise leave an account and its rows for good.
import type { AccountRepository } from "../db/accounts.js";
import type { Logger } from "../telemetry/logger.js";

/** Accounts deleted per statement: a sweep after a long pause deletes in bounded transactions. */
export const SWEEP_BATCH = 500;
/** The longest wait between sweeps. */
const SWEEP_EVERY_MAX_MS = 60 * 60 * 1000;

export class AnonymousAccountSweep {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  /** `retentionSeconds`: how long an anonymous account stays unseen before it goes; 0 keeps them all. */
  constructor(
    private readonly accounts: Pick<AccountRepository, "deleteAbsentAnonymous">,
    private readonly retentionSeconds: number,
    private readonly logger: Logger,
  ) {}

  /** Sweeps now and then every hour (or every quarter of the retention, when shorter). */
  start(): void {
    if (this.retentionSeconds === 0 || this.timer) return;
    const everyMs = Math.min(SWEEP_EVERY_MAX_MS, (this.retentionSeconds * 1000) / 4);
    this.timer = setInterval(() => void this.sweep(), everyMs).unref();
    void this.sweep();
  }

  /** No more sweeps; resolves once the one under way, if any, has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** Deletes every account due, batch by batch; gives how many. A failure is logged, and tried again next time. */
  sweep(): Promise<number> {
    if (this.retentionSeconds === 0) return Promise.resolve(0);
    this.sweeping ??= this.deleteDue().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async deleteDue(): Promise<number> {
    let deleted = 0;
    try {
      for (;;) {
        const batch = await this.accounts.deleteAbsentAnonymous(this.retentionSeconds, SWEEP_BATCH);
        deleted += batch;
        if (batch < SWEEP_BATCH) break;
      }
    } catch (error) {
      this.logger.warn({ err: error, deleted }, "deleting the anonymous accounts long unseen failed");
    }
    if (deleted > 0)
      this.logger.info(
        { deleted, retentionSeconds: this.retentionSeconds },
        `deleted ${deleted} anonymous account(s) unseen for ${this.retentionSeconds} s, with their characters`,
      );
    return deleted;
  }
}
