// A player's paces (the first tick it may swing, make, eat or bury again) outlive its logout: the
// character keeps them as the wall-clock instants they fall on, and a login in any world takes them up
// again, so that logging out and in between two actions never makes the second come sooner.
import type { ActionPaces, PaceName } from "./character-state.js";

/** The player's fields each pace is kept in while it plays. */
export interface PaceTicks {
  nextAttackTick: number;
  nextMakeTick: number;
  nextEatTick: number;
  nextBuryTick: number;
}

const FIELDS: Record<PaceName, keyof PaceTicks> = {
  attack: "nextAttackTick",
  make: "nextMakeTick",
  eat: "nextEatTick",
  bury: "nextBuryTick",
};
const NAMES = Object.keys(FIELDS) as PaceName[];

/** Where the world's clock stands: its tick, the epoch milliseconds now, and a tick's length. */
export interface PaceClock {
  tick: number;
  now: number;
  tickMs: number;
}

/** The paces still ahead of a player leaving, as the epoch milliseconds they fall on; none: undefined. */
export function pacesAhead(player: PaceTicks, { tick, now, tickMs }: PaceClock): ActionPaces | undefined {
  const ahead: ActionPaces = {};
  for (const name of NAMES) {
    const next = player[FIELDS[name]];
    if (next > tick) ahead[name] = now + (next - tick) * tickMs;
  }
  return Object.keys(ahead).length > 0 ? ahead : undefined;
}

/** A player's pace ticks as it arrives: each instant still ahead, in whole ticks from now (rounded up). */
export function paceTicks(paces: ActionPaces | undefined, { tick, now, tickMs }: PaceClock): PaceTicks {
  const ticks: PaceTicks = { nextAttackTick: 0, nextMakeTick: 0, nextEatTick: 0, nextBuryTick: 0 };
  for (const name of NAMES) {
    const at = paces?.[name];
    if (at !== undefined && at > now) ticks[FIELDS[name]] = tick + Math.ceil((at - now) / tickMs);
  }
  return ticks;
}

/** Paces as stored (a JSON object of epoch milliseconds); anything else reads as none. */
export function readPaces(stored: unknown): ActionPaces | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const paces: ActionPaces = {};
  for (const name of NAMES) {
    const at = (stored as Record<string, unknown>)[name];
    if (typeof at === "number" && Number.isFinite(at)) paces[name] = at;
  }
  return Object.keys(paces).length > 0 ? paces : undefined;
}
