// Walks longer than one move: the server takes a move of at most MAX_PATH_LENGTH tiles, so a trip is
// planned over the whole map once and walked in legs, each well inside that limit.
import { findPathNear, MAX_PATH_LENGTH } from "../../game/pathfinding.js";
import { sameTile } from "../../game/tile.js";
import type { Tile } from "../../game/types.js";
import type { Step, WorldKnowledge } from "../brain.js";
import type { AgentContext } from "../knowledge.js";
import { here } from "./lookups.js";
import type { ActionName, Task } from "./types.js";

/** Steps per leg: under the server's limit, with room for the path it finds to differ from ours. */
export const LEG_STEPS = 150;
/** The longest trip planned: the map's walkable paths are far shorter. */
const MAX_TRIP_STEPS = 5000;
/** Decisions without moving before a leg is asked for again; after as many asks, the walk gives up. */
const STALL_DECISIONS = 3;
const MAX_RESENDS = 3;

/** The ends of the legs from `from` to within `range` of `to`, or undefined when no path leads there. */
export function planLegs(world: WorldKnowledge, from: Tile, to: Tile, range: number): Tile[] | undefined {
  const path = findPathNear(world.map, from, to, range, MAX_TRIP_STEPS);
  if (!path) return undefined;
  const legs: Tile[] = [];
  for (let i = LEG_STEPS - 1; i < path.length; i += LEG_STEPS) legs.push(path[i]!);
  const last = path.at(-1);
  if (last && !(legs.length > 0 && sameTile(legs.at(-1)!, last))) legs.push(last);
  return legs;
}

export function moveStep(tile: Tile, run = false): Step {
  return { event: "player:move", data: { x: tile.x, z: tile.z, ...(run && { run }) } };
}

/** Safety: no leg ever asks for more than the server's limit. */
export function withinMoveLimit(from: Tile, to: Tile): boolean {
  return Math.max(Math.abs(from.x - to.x), Math.abs(from.z - to.z)) <= MAX_PATH_LENGTH;
}

/**
 * Walks the legs one after another, then hands over to `then` (done, by default). A leg is asked for
 * again when the agent stops short of it, and the walk gives up after MAX_RESENDS such asks.
 */
export function legsTask(
  action: ActionName,
  legs: readonly Tile[],
  then: (context: AgentContext) => Step | "wait" | "done" = () => "done",
): Task {
  let leg = 0;
  let asked = -1;
  let last: Tile | undefined;
  let still = 0;
  let resends = 0;
  return {
    action,
    step(context) {
      const position = here(context.know);
      while (leg < legs.length && sameTile(position, legs[leg]!)) leg++;
      if (leg >= legs.length) return then(context);
      still = last && sameTile(last, position) ? still + 1 : 0;
      last = { ...position };
      if (asked === leg && still < STALL_DECISIONS) return "wait";
      if (asked === leg && ++resends > MAX_RESENDS) return "done";
      asked = leg;
      still = 0;
      const target = legs[leg]!;
      return withinMoveLimit(position, target) ? moveStep(target) : "done";
    },
  };
}
