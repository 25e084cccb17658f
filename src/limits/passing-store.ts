import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from "express-rate-limit";
import type { Logger } from "../telemetry/logger.js";

/**
 * A shared counter store (Redis) that lets requests through, uncounted, while it cannot count them:
 * an outage of the store that only counts requests must not stop players signing in and playing (nor
 * keep each request waiting for the store to come back). The outage is logged once when it begins and
 * once when counting works again.
 */
export class PassingStore implements Store {
  readonly localKeys = false;
  readonly prefix: string | undefined;
  private options: Options | undefined;
  /** A failure may have come while the store loaded what it counts with (its init): it is loaded again. */
  private reinitialize = false;
  private failing = false;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly what: string,
  ) {
    this.prefix = store.prefix;
  }

  async init(options: Options): Promise<void> {
    this.options = options;
    try {
      await this.store.init?.(options);
    } catch {
      // At start-up the connection is usually not up yet: the first count loads it again, and reports
      // a failure if there is one then.
      this.reinitialize = true;
    }
  }

  async increment(key: string): Promise<IncrementResponse> {
    try {
      if (this.reinitialize && this.options) await this.store.init?.(this.options);
      const counted = await this.store.increment(key);
      this.succeeded();
      return counted;
    } catch (error) {
      this.failed(error);
      // Not counted: no hits, no reset time (the limiters accept that, see rate-limits.ts).
      return { totalHits: 0, resetTime: undefined };
    }
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    try {
      if (this.reinitialize && this.options) await this.store.init?.(this.options);
      return await this.store.get?.(key);
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  async decrement(key: string): Promise<void> {
    await this.pass(() => this.store.decrement(key));
  }

  async resetKey(key: string): Promise<void> {
    await this.pass(() => this.store.resetKey(key));
  }

  async shutdown(): Promise<void> {
    await this.store.shutdown?.();
  }

  private async pass(change: () => Promise<void> | void): Promise<void> {
    try {
      await change();
    } catch (error) {
      this.failed(error);
    }
  }

  private succeeded(): void {
    this.reinitialize = false;
    if (!this.failing) return;
    this.failing = false;
    this.logger.info(`${this.what} are counted again`);
  }

  private failed(error: unknown): void {
    this.reinitialize = true;
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(
      { err: error },
      `${this.what} cannot be counted: they pass uncounted until Redis answers`,
    );
  }
}
