// Worlds whose process died open again on their own: without it, a world (and its agents) would wait,
// closed, for the next player or agent request to come to it.
import { matchMaker } from "@colyseus/core";
import { findWorld, listWorlds, openWorld } from "./world-listing.js";

/** How often a process looks for worlds that stopped running. */
const WATCH_EVERY_MS = 5000;
/**
 * A world seen running this recently (by any process, or opened) is opened again where it runs nowhere.
 * Longer than a few looks, so that a death is always found within it; short enough that after the whole
 * deployment stopped, its processes share the worlds at start again as they open them (openFreeWorld).
 */
const RAN_RECENTLY_SECONDS = 60;
/**
 * A world is opened again once it has run nowhere for this long: longer than Colyseus takes to list
 * again the rooms of a live process whose Redis channel was missing for a moment (a reconnection) and
 * that a health check took for gone (its swept check, every 5 s), so that such a blip moves no world.
 */
const MISSING_FOR_MS = 8000;
/** The processes that find a world gone wait up to this long, at random, so that one opens it. */
const REOPEN_JITTER_MS = 500;

const ranKey = (world: number) => `world:ran:${world}`;

/** Notes, in the presence every process shares, that a world runs (at its opening, and at each look). */
export async function noteWorldRunning(world: number): Promise<void> {
  await matchMaker.presence.setex(ranKey(world), "1", RAN_RECENTLY_SECONDS);
}

export interface WorldWatchEvents {
  /** A world that ran recently runs nowhere now: this process opens it. */
  reopening(world: number): void;
  /** A look failed (Redis unreachable, an opening refused); said once until a look succeeds. */
  failed(error: unknown): void;
}

/**
 * Every few seconds, for worlds 1..`worlds`: unlists the rooms of processes found gone (Colyseus checks
 * only the processes whose Redis channel has closed, as a killed process's does at once: a stalled one
 * is left alone), notes the worlds running, and opens here each world that ran recently and has run
 * nowhere for a while (MISSING_FOR_MS), whoever unlisted it. An opening that races another process's
 * joins it (see openWorld), and the world's lease settles the rest.
 */
export function watchWorlds(worlds: number, events: WorldWatchEvents): void {
  stopWatchingWorlds();
  let failing = false;
  let busy = false;
  /** When each world that ran recently was first found running nowhere. */
  const missingSince = new Map<number, number>();
  const look = async () => {
    if (busy || matchMaker.state !== matchMaker.MatchMakerState.READY) return;
    busy = true;
    try {
      await matchMaker.healthCheckAllProcesses();
      const running = await listWorlds();
      for (let world = 1; world <= worlds; world++) {
        if (running.has(world)) {
          missingSince.delete(world);
          await noteWorldRunning(world);
        } else if (await matchMaker.presence.exists(ranKey(world))) {
          const since = missingSince.get(world) ?? Date.now();
          missingSince.set(world, since);
          if (Date.now() - since >= MISSING_FOR_MS) {
            missingSince.delete(world);
            await reopen(world, events);
          }
        } else missingSince.delete(world);
      }
      failing = false;
    } catch (error) {
      if (!failing) events.failed(error);
      failing = true;
    } finally {
      busy = false;
    }
  };
  watch = setInterval(() => void look(), WATCH_EVERY_MS);
  watch.unref();
}

async function reopen(world: number, events: WorldWatchEvents): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * REOPEN_JITTER_MS));
  // Another process may have opened it meanwhile.
  if (matchMaker.state !== matchMaker.MatchMakerState.READY || (await findWorld(world))) return;
  events.reopening(world);
  await openWorld(world);
}

/** The process's watch, as the matchmaker is the process's: one at a time. */
let watch: NodeJS.Timeout | undefined;

/** At shutdown: the worlds this process closes are left to the others. */
export function stopWatchingWorlds(): void {
  clearInterval(watch);
  watch = undefined;
}
