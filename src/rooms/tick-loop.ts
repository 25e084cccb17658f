import { performance } from "node:perf_hooks";
import { Deferred } from "@colyseus/core";
import type { World } from "../game/world.js";
import type { TickReport } from "../game/world-types.js";
import type { FrameWrites } from "../net/frame-writes.js";
import type { PendingReplies } from "./pending-replies.js";
import { collectTickGarbage } from "./tick-garbage.js";
import type { TickSaves } from "./tick-saves.js";
import type { TickTimings } from "./tick-timings.js";
import type { WorldPersistence } from "./world-persistence.js";

type Holding = { readonly state: "holding"; readonly held: (() => void)[]; retrying: boolean };

/**
 * Where the world's ticks stand with its database: whether the next tick steps, and when what is to be
 * sent goes out (see whenPublished).
 * - stepping: everything the world has told is durable; the next tick steps, and what is to be sent goes
 *   at once.
 * - writing: a write of the ticks runs (a tick's, or the retry that ended a hold); the next tick waits
 *   for it, since a slow database slows the world, and what is to be sent goes once it is published.
 * - holding: a tick's write failed, and the world waits for its database: that tick's publication and
 *   whatever is to be sent meanwhile wait for a write to commit, and each tick tries the write again
 *   (`retrying` while it runs) instead of stepping. So nothing a player is told (a deposit acknowledged,
 *   loot received) can be undone by a crash, and nothing happens unseen.
 */
export type Durability =
  | { readonly state: "stepping" }
  | { readonly state: "writing"; readonly afterWrite: (() => void)[] }
  | Holding;

const STEPPING: Durability = { state: "stepping" };

/** What the loop drives: the world, its writes, and the room's own phases of a tick. */
export interface TickLoopParts {
  readonly world: World;
  readonly saves: TickSaves;
  readonly persistence: WorldPersistence;
  readonly timings: TickTimings;
  readonly replies: PendingReplies;
  /** Whether trades are committing: a tick waits for them (see TradeCommits). */
  tradesCommitting(): boolean;
  /** The "project" phase: the tick into the replicated state and the room's other parts. */
  project(report: TickReport): void;
  /** The "publish" phase: the tick's views and events, as socket writes to hand over. */
  publish(report: TickReport): FrameWrites;
  /** Told once a tick's frames are handed to the sockets (see TickPace). */
  published?(tick: number): void;
}

/**
 * The world's one authoritative tick and its durability. Each tick runs the world's phases (input, npcs,
 * players, combat, skills, items), then the room's own: project (into the replicated state), persist
 * (note the tick's changes, queue a write), commit (wait for it) and publish (events and views), each
 * timed. Events go out only once the tick's changes are durable, so a bank acknowledgement follows its
 * commit. Only the loop steps the world: the clock calls `tick`, and a tick held for trades runs from
 * `tradesDone`.
 */
export class TickLoop {
  private durability: Durability = STEPPING;
  /** Set when a write found that another world holds the lease: nothing steps or publishes any more. */
  private superseded = false;
  /**
   * A tick that came while trades were committing: it runs once they are done, and a trade that comes
   * meanwhile waits for it, or trades that kept overlapping would hold the world still.
   */
  private heldForTrades: Deferred<void> | undefined;
  /** The last publication's socket writes, done once its frames are handed to the kernel. */
  private framesOut: Promise<void> = Promise.resolve();

  constructor(private readonly parts: TickLoopParts) {}

  /** The clock's tick: steps the world now, or once the trades committing are done. */
  tick(): void {
    if (this.superseded) return;
    if (this.parts.tradesCommitting()) {
      this.heldForTrades ??= new Deferred<void>();
      return;
    }
    this.advance();
  }

  /** The tick held for the trades committing, if one is (see heldForTrades): a trade waits for it. */
  heldTick(): Promise<void> | undefined {
    return this.heldForTrades?.promise;
  }

  /** No trade is committing any more: the tick that waited for them, then the trades that waited for it. */
  tradesDone(): void {
    const held = this.heldForTrades;
    if (!held) return;
    this.heldForTrades = undefined;
    try {
      this.advance();
    } finally {
      held.resolve();
    }
  }

  /** Whether the world waits for its database: messages are refused, and no trade may commit. */
  get waitsForDatabase(): boolean {
    return this.durability.state === "holding";
  }

  /** Another world holds the lease: this one steps and publishes nothing more. */
  supersede(): void {
    this.superseded = true;
  }

  get isSuperseded(): boolean {
    return this.superseded;
  }

  /** Resolves once the last publication's frames are handed to the kernel. */
  framesSent(): Promise<void> {
    return this.framesOut;
  }

  /**
   * Sends what shows the world's current state (a login, a reconnection, a REST read) once that state
   * is durable: at once, after the publication of the tick whose write is running, or, while the world
   * holds, after the held publications once a write commits.
   */
  whenPublished(send: () => void): void {
    const { durability } = this;
    if (durability.state === "holding") durability.held.push(send);
    else if (durability.state === "writing") durability.afterWrite.push(send);
    else send();
  }

  /**
   * Takes back what `whenPublished` was given and has not run yet: a wait that gave up leaves nothing
   * behind for as long as the database is down. The held publications stay, and the world waits.
   */
  withdraw(send: () => void): void {
    const { durability } = this;
    if (durability.state === "stepping") return;
    const waiting = durability.state === "holding" ? durability.held : durability.afterWrite;
    const index = waiting.indexOf(send);
    if (index >= 0) waiting.splice(index, 1);
  }

  /**
   * A write committed, whichever it was (a tick's, a departure's, a trade's catch-up): what it made
   * durable goes out, the held publications first, in order.
   */
  written(): void {
    const { durability } = this;
    if (durability.state !== "holding") return;
    // A retry still running keeps the next tick waiting for it, as any write of the ticks does.
    this.durability = durability.retrying ? { state: "writing", afterWrite: [] } : STEPPING;
    for (const publication of durability.held) publication();
  }

  private advance(): void {
    if (this.superseded) return;
    const { durability } = this;
    // A slow database slows the world: no tick steps ahead of what the last one is still writing.
    if (durability.state === "writing" || (durability.state === "holding" && durability.retrying)) return;
    if (durability.state === "holding") this.retry(durability);
    else this.step();
  }

  private step(): void {
    const { world, saves, persistence, timings, replies } = this.parts;
    const repliesApplied = replies.mark();
    const report = world.step();
    const phaseMs: Record<string, number> = { ...report.phaseMs };
    const timed = (phase: string, work: () => void) => {
      const started = performance.now();
      work();
      phaseMs[phase] = performance.now() - started;
    };
    timed("project", () => this.parts.project(report));
    const writing = { state: "writing", afterWrite: [] as (() => void)[] } as const;
    let saved: Promise<void> = Promise.resolve();
    timed("persist", () => {
      saves.note(report);
      this.durability = writing;
      saved = persistence.write();
    });
    const waitStarted = performance.now();
    const publication = () => {
      phaseMs.commit = performance.now() - waitStarted;
      let writes: FrameWrites | undefined;
      timed("publish", () => {
        writes = this.parts.publish(report);
      });
      try {
        timings.record(report.tick, phaseMs);
      } finally {
        // Handed over once the tick's work is done: on one core the writer thread takes the core from
        // here. The young generation is emptied once the frames are out: the players wait for those.
        if (writes) {
          this.framesOut = writes.send();
          void this.framesOut.then(() => {
            collectTickGarbage();
            this.parts.published?.(report.tick);
          });
        }
      }
      // Later messages wait for the next tick; these were applied by this one, and answered if refused.
      replies.forgetBefore(repliesApplied);
    };
    // Events go out once this tick's changes are durable; a world that may not write publishes nothing.
    saved.then(
      () => {
        this.durability = STEPPING;
        publication();
        for (const send of writing.afterWrite) send();
      },
      () => {
        this.durability = this.superseded
          ? STEPPING
          : { state: "holding", held: [publication, ...writing.afterWrite], retrying: false };
      },
    );
  }

  /** The tick's one attempt, while the world holds, at the write it waits for. */
  private retry(holding: Holding): void {
    holding.retrying = true;
    const settled = () => {
      const { durability } = this;
      if (durability === holding) holding.retrying = false;
      else if (durability.state === "writing") {
        // The hold ended while the retry ran (see written): what waited for the retry goes now.
        this.durability = STEPPING;
        for (const send of durability.afterWrite) send();
      }
    };
    this.parts.persistence.write().then(settled, settled);
  }
}
