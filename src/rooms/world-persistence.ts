import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { CharacterSave } from "../db/characters.js";
import { isDataError } from "../db/pg-errors.js";
import { WorldSupersededError, type WriteFence } from "../db/world-lease.js";
import { isEmptyWrite, type WorldStore, type WorldWrite } from "../db/world-store.js";
import { within } from "../limits/time-limit.js";
import type { WorldDatabaseState } from "../ports/world-health.js";
import type { Logger } from "../telemetry/logger.js";
import { recordDatabaseWrite } from "../telemetry/metrics.js";

/** What the world has changed and not yet written (TickSaves). */
export interface UnsavedWrites {
  /** All of it, as the world holds it now; from then on it counts as written. */
  take(): WorldWrite;
  /** A write of it failed: it is unsaved again, and the next write takes it as the world then holds it. */
  failed(write: WorldWrite): void;
}

/** A departed player's last state, which the world no longer holds, until a write of it commits. */
interface Departure {
  save: CharacterSave;
  written: Promise<void>;
  markWritten: () => void;
}

/** Waits between the attempts of the last write of a closing world, which no tick will try again. */
const CLOSING_WRITE_BACKOFF_MS = [250, 1000, 2000, 2000];
/**
 * How long a closing world keeps trying its last write: a shutdown ends within the 10 s that container
 * runtimes wait after SIGTERM before they kill (Docker's default), the database's outage or not.
 */
const CLOSING_WRITE_MS = 6000;

/** Database work of the world's running this long (a write takes milliseconds) makes it count as waiting. */
const SLOW_WRITE_MS = 1000;

/**
 * The WorldRoom's writes, one transaction at a time. Each write takes everything the world has left
 * unsaved, as the world holds it when the write starts, together with every departed player's last
 * state not written yet. So nothing is ever written ahead of what it depends on: a departure (an
 * inventory without the item its player dropped) commits with the item's ground row or not at all, and
 * a ground row written after a departure failed (another player picks the item up) carries the
 * departure with it. A failed write leaves it all for the next one, which the next tick makes.
 */
export class WorldPersistence {
  private chain: Promise<void> = Promise.resolve();
  /** A write queued last and not started yet: a later one joins it, since it takes what is unsaved when it starts. */
  private queuedWrite: Promise<void> | undefined;
  /** By character id. */
  private readonly departures = new Map<string, Departure>();
  /**
   * The last write carried departures and the database refused its data: the next writes each departure
   * apart, so that one state it can never take (a character row gone) does not hold up every write.
   */
  private departuresRefused = false;
  /** Writes failed in a row: only the first is logged, and the recovery. */
  private failedWrites = 0;
  /** When the first of the failed writes in a row started (performance.now()). */
  private failingSince: number | undefined;
  /** When the task under way (a write, a swap, a check of the fence) started. */
  private taskStartedAt: number | undefined;

  /** Set once a write found the world replaced: nothing more is written. */
  private superseded: WorldSupersededError | undefined;
  private readonly fence: WriteFence | undefined;
  private readonly closingWriteBackoffMs: readonly number[];
  private readonly closingWriteMs: number;
  private readonly onSuperseded: (error: WorldSupersededError) => void;
  private readonly onWritten: () => void;

  constructor(
    private readonly store: WorldStore,
    private readonly unsaved: UnsavedWrites,
    private readonly logger: Logger,
    options: {
      /** Checked first in every transaction: the world's lease (see WorldLease). */
      fence?: WriteFence;
      /** Told once, when a transaction finds that another world holds the lease. */
      onSuperseded?: (error: WorldSupersededError) => void;
      closingWriteBackoffMs?: readonly number[];
      /** How long the closing world's last write is tried, in all. */
      closingWriteMs?: number;
      /** Told each time a write commits: everything the world had noted until it started is durable. */
      onWritten?: () => void;
    } = {},
  ) {
    this.onWritten = options.onWritten ?? (() => {});
    this.fence = options.fence;
    this.onSuperseded = options.onSuperseded ?? (() => {});
    this.closingWriteBackoffMs = options.closingWriteBackoffMs ?? CLOSING_WRITE_BACKOFF_MS;
    this.closingWriteMs = options.closingWriteMs ?? CLOSING_WRITE_MS;
  }

  /** Whether the writes reach the database: not while they fail, nor while one runs past SLOW_WRITE_MS. */
  databaseState(): WorldDatabaseState {
    const now = performance.now();
    const slowSince =
      this.taskStartedAt !== undefined && now - this.taskStartedAt >= SLOW_WRITE_MS
        ? this.taskStartedAt
        : undefined;
    const since = this.failingSince ?? slowSince;
    return since === undefined ? { state: "ok" } : { state: "waiting", sinceMs: Math.round(now - since) };
  }

  /** Queues a write of everything unsaved (see the class); resolves once it has committed, rejects if it failed. */
  write(): Promise<void> {
    if (this.queuedWrite) return this.queuedWrite;
    const queued = this.run(() => {
      if (this.queuedWrite === queued) this.queuedWrite = undefined;
      return this.saveCaughtUp();
    });
    queued.catch(() => {});
    this.queuedWrite = queued;
    return queued;
  }

  /**
   * Departing players' last states: written with the next write (see `write`, whose outcome this
   * returns), and with every one after it until one commits.
   */
  writeFinal(characters: readonly CharacterSave[]): Promise<void> {
    for (const save of characters) {
      const departure = this.departures.get(save.state.id);
      if (departure) departure.save = save;
      else this.departures.set(save.state.id, departing(save));
    }
    return this.write();
  }

  /**
   * Checks the fence on its own, in turn with the writes: a world with nothing to write would otherwise
   * never find out that it was replaced.
   */
  checkFence(): Promise<void> {
    const fence = this.fence;
    return fence ? this.run(() => this.store.checkFence(fence)) : Promise.resolve();
  }

  /**
   * One transaction of everything unsaved and of the departures not written yet. Outside this class,
   * only from within a task of `run` (a trade's swap must read a database that holds what the world
   * holds).
   */
  async saveCaughtUp(): Promise<void> {
    const write = this.unsaved.take();
    const carried = [...this.departures.values()].map((departure) => ({ departure, save: departure.save }));
    if (carried.length === 0 && isEmptyWrite(write)) return;
    const saves = carried.map(({ save }) => save);
    const apart = this.departuresRefused;
    let refused: CharacterSave[];
    const startedAt = performance.now();
    try {
      refused = await this.store.save(
        { ...write, characters: apart ? write.characters : [...saves, ...write.characters] },
        this.fence,
        apart ? saves : [],
      );
    } catch (error) {
      recordDatabaseWrite((performance.now() - startedAt) / 1000, "failed");
      this.unsaved.failed(write);
      this.departuresRefused = saves.length > 0 && isDataError(error);
      this.failingSince ??= startedAt;
      if (this.failedWrites++ === 0)
        this.logger.error(
          { err: error, departures: saves.length, ms: Math.round(performance.now() - startedAt) },
          "saving the world failed: the world holds its players' actions until a write commits; retrying",
        );
      throw error;
    }
    recordDatabaseWrite((performance.now() - startedAt) / 1000, "ok");
    this.departuresRefused = false;
    if (this.failedWrites > 0)
      this.logger.info(
        {
          failedWrites: this.failedWrites,
          waitedMs: Math.round(performance.now() - (this.failingSince ?? startedAt)),
        },
        "saving the world works again",
      );
    this.failedWrites = 0;
    this.failingSince = undefined;
    for (const save of refused)
      this.logger.error(
        { character: save.state },
        "the database refuses a departed player's last state: it is not kept (logged here in full)",
      );
    for (const { departure, save } of carried) {
      // A newer state of the same player (it came back and left again meanwhile) still waits for its write.
      if (departure.save !== save) continue;
      this.departures.delete(save.state.id);
      departure.markWritten();
    }
    this.onWritten();
  }

  /** Runs other database work (a trade's swap) in the same order as the writes: after all queued so far. */
  run<T>(task: () => Promise<T>): Promise<T> {
    // Whatever comes after this task is written after it: a write queued before it takes nothing later.
    this.queuedWrite = undefined;
    const result = this.chain.then(async () => {
      if (this.superseded) throw this.superseded;
      this.taskStartedAt = performance.now();
      try {
        return await task();
      } finally {
        this.taskStartedAt = undefined;
      }
    });
    this.chain = result.then(
      () => {},
      (error: unknown) => {
        if (!(error instanceof WorldSupersededError) || this.superseded) return;
        this.superseded = error;
        this.onSuperseded(error);
        // Nothing will be written: a login waiting for a departure loads what was saved last, as after a crash.
        for (const departure of this.departures.values()) departure.markWritten();
        this.departures.clear();
      },
    );
    return result;
  }

  /**
   * The closing world's last write: everything unsaved and the departures, tried again with backoff
   * while it fails, since no tick will. What it cannot write by the end is logged and lost.
   */
  async flush(): Promise<void> {
    const deadline = performance.now() + this.closingWriteMs;
    for (const delay of [0, ...this.closingWriteBackoffMs]) {
      if (delay > 0) await sleep(Math.min(delay, Math.max(0, deadline - performance.now())));
      if (performance.now() >= deadline) break;
      // A write still running at the deadline (a silent connection) is not waited for any longer.
      const attempt = (async () => {
        await this.write();
        await this.chain;
        return true;
      })();
      const outcome = await within(
        attempt.catch((error: unknown) => error instanceof WorldSupersededError),
        deadline - performance.now(),
        false,
      );
      if (outcome) return;
    }
    this.logger.error(
      { characters: [...this.departures.keys()] },
      "the closing world could not write its last changes: they are lost",
    );
  }

  /** Resolves once this character's departure is written (at once when none is waiting). */
  settled(characterId: string): Promise<void> {
    return this.departures.get(characterId)?.written ?? Promise.resolve();
  }
}

function departing(save: CharacterSave): Departure {
  let markWritten = () => {};
  const written = new Promise<void>((resolve) => {
    markWritten = resolve;
  });
  return { save, written, markWritten };
}
