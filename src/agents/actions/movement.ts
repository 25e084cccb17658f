// The interface's movement actions: moveTo, followEntity, stopMovement, explore, approachEntity, navigateTo.
import { z } from "zod";
import { MAX_PATH_LENGTH } from "../../game/pathfinding.js";
import { chebyshev } from "../../game/tile.js";
import type { Tile } from "../../game/types.js";
import type { AgentContext } from "../knowledge.js";
import { describeTile, here, nearestOf, regionOf, seen, walkableBeside } from "./lookups.js";
import { defineAction, OK, refuse } from "./types.js";
import { legsTask, moveStep, planLegs } from "./walking.js";

const coordinate = z.int().min(-1_000_000).max(1_000_000);
const entityId = z.string().min(1).max(64);

export const moveTo = defineAction({
  name: "moveTo",
  description: `Walk (or run) to a tile at most ${MAX_PATH_LENGTH} tiles away; use navigateTo for longer trips.`,
  params: z.strictObject({ x: coordinate, z: coordinate, run: z.boolean().optional() }),
  run(runtime, { x, z, run }) {
    const from = here(runtime.know);
    const distance = chebyshev(from, { x, z });
    if (distance > MAX_PATH_LENGTH)
      return refuse(
        `${describeTile({ x, z })} is ${distance} tiles away; moveTo goes at most ${MAX_PATH_LENGTH} tiles at a time: use navigateTo for longer trips`,
      );
    const region = regionOf(runtime.world, from);
    const reachable =
      regionOf(runtime.world, { x, z }) === region ||
      walkableBeside(runtime.world, { x, z }, region).length > 0;
    if (!reachable) return refuse(`${describeTile({ x, z })} cannot be reached from where the agent stands`);
    runtime.halt();
    runtime.send(moveStep({ x, z }, run));
    return OK;
  },
});

/** A tile beside `target` to walk to, in the agent's region, nearest first. */
function besideTarget(context: AgentContext, target: Tile): Tile | undefined {
  const from = here(context.know);
  const tiles = walkableBeside(context.world, target, regionOf(context.world, from));
  return nearestOf(
    from,
    tiles.map((position) => ({ position })),
  )?.position;
}

export const followEntity = defineAction({
  name: "followEntity",
  description:
    "Follow a player or NPC in view, staying beside it, until stopped (stopMovement or another action).",
  params: z.strictObject({ entityId }),
  run(runtime, { entityId: id }) {
    const target = seen(runtime.know, id);
    if (!target)
      return refuse(`${id} is not in view: followEntity follows a player or NPC the agent can see`);
    if (target.kind !== "player" && target.kind !== "npc")
      return refuse(
        `${target.name} is ${target.kind === "item" ? "an item" : "a resource"}: only players and NPCs can be followed`,
      );
    runtime.halt();
    let lastKnown: Tile = target.position;
    let walkingTo: Tile | undefined;
    runtime.begin({
      action: "followEntity",
      step(context) {
        const now = seen(context.know, id);
        if (now) lastKnown = now.position;
        const from = here(context.know);
        // Beside it already (or where it was last seen): wait for it to move on.
        if (chebyshev(from, lastKnown) <= 1) return "wait";
        const tile = besideTarget(context, lastKnown) ?? lastKnown;
        if (walkingTo && chebyshev(walkingTo, tile) <= 1) return "wait";
        walkingTo = tile;
        return chebyshev(from, tile) <= MAX_PATH_LENGTH ? moveStep(tile, chebyshev(from, tile) > 3) : "wait";
      },
    });
    return OK;
  },
  available: ({ know }) => know.entities.some((entity) => entity.kind === "player" || entity.kind === "npc"),
});

export const stopMovement = defineAction({
  name: "stopMovement",
  description: "Stop walking and stop the action under way (following, gathering, fighting).",
  params: z.strictObject({}),
  run(runtime) {
    runtime.halt();
    return OK;
  },
});

/** How far an explore walk goes. */
const EXPLORE_MIN = 8;
const EXPLORE_MAX = 30;

export const explore = defineAction({
  name: "explore",
  description: `Walk to a random reachable tile ${EXPLORE_MIN} to ${EXPLORE_MAX} tiles away, to see what lies around.`,
  params: z.strictObject({}),
  run(runtime) {
    const from = here(runtime.know);
    const region = regionOf(runtime.world, from);
    for (let attempt = 0; attempt < 50; attempt++) {
      const angle = Math.random() * 2 * Math.PI;
      const distance = EXPLORE_MIN + Math.random() * (EXPLORE_MAX - EXPLORE_MIN);
      const tile = {
        x: Math.round(from.x + Math.cos(angle) * distance),
        z: Math.round(from.z + Math.sin(angle) * distance),
      };
      if (regionOf(runtime.world, tile) !== region) continue;
      runtime.halt();
      runtime.send(moveStep(tile));
      return OK;
    }
    return refuse("there is no open ground around the agent to explore");
  },
});

export const approachEntity = defineAction({
  name: "approachEntity",
  description: "Walk next to an entity in view (a player, NPC, item, tree, rock or fishing spot).",
  params: z.strictObject({ entityId }),
  run(runtime, { entityId: id }) {
    const target = seen(runtime.know, id);
    if (!target)
      return refuse(`${id} is not in view: approach something the agent can see (see nearbyEntities)`);
    const from = here(runtime.know);
    if (chebyshev(from, target.position) <= 1) return refuse(`the agent is already beside ${target.name}`);
    const tile = besideTarget(runtime, target.position);
    if (!tile) return refuse(`${target.name} cannot be reached from where the agent stands`);
    runtime.halt();
    runtime.send(moveStep(tile));
    return OK;
  },
  available: ({ know }) => know.entities.length > 0,
});

/** Landmarks navigateTo knows besides areas: the kinds of places the map lists. */
function landmarkTiles(context: AgentContext, landmark: string): Tile[] {
  const { data } = context.world;
  const name = landmark.trim().toLowerCase().replaceAll(" ", "_");
  const areas = data.areas;
  if (name === "bank") return areas.flatMap((area) => area.banks);
  const stations = areas.flatMap((area) =>
    area.stations.filter(
      (placed) => placed.stationId === name || data.stations.get(placed.stationId)?.type === name,
    ),
  );
  if (stations.length > 0) return stations;
  const resources = areas.flatMap((area) => area.resources.filter((placed) => placed.resourceId === name));
  if (resources.length > 0) return resources;
  return areas.flatMap((area) => area.npcSpawns.filter((spawn) => spawn.npcId === name));
}

export const navigateTo = defineAction({
  name: "navigateTo",
  description:
    "Travel anywhere on the map, in legs: to an area (its id or name), a landmark (bank, cooking_range, furnace, anvil, a resource such as oak_tree, or an NPC such as goblin: the nearest one), or a tile {x, z}.",
  params: z
    .strictObject({
      area: z.string().min(1).max(64).optional(),
      landmark: z.string().min(1).max(64).optional(),
      x: coordinate.optional(),
      z: coordinate.optional(),
    })
    .refine(
      ({ area, landmark, x, z }) =>
        [area !== undefined, landmark !== undefined, x !== undefined || z !== undefined].filter(Boolean)
          .length === 1 && (x === undefined) === (z === undefined),
      { message: "give exactly one of: area, landmark, or both x and z" },
    ),
  run(runtime, { area, landmark, x, z }) {
    const { data } = runtime.world;
    const from = here(runtime.know);
    const region = regionOf(runtime.world, from);
    let places: Tile[];
    let range = 0;
    let name: string;
    if (area !== undefined) {
      const wanted = area.trim().toLowerCase();
      const found = data.areas.find((a) => a.id === wanted || a.name.toLowerCase() === wanted);
      if (!found)
        return refuse(`there is no area "${area}"; the areas are ${data.areas.map((a) => a.id).join(", ")}`);
      places = [found.spawnPoint];
      name = found.name;
    } else if (landmark !== undefined) {
      places = landmarkTiles(runtime, landmark);
      if (places.length === 0)
        return refuse(
          `there is no landmark "${landmark}": name bank, a station (cooking_range, furnace, anvil), a resource (tree, oak_tree, ...) or an NPC (goblin, ...)`,
        );
      // Booths, stations, trees and rocks stand on tiles nobody walks onto: arrive beside them.
      range = 1;
      name = landmark;
    } else {
      places = [{ x: x!, z: z! }];
      name = describeTile({ x: x!, z: z! });
    }
    const reachable = places.filter(
      (place) =>
        regionOf(runtime.world, place) === region || walkableBeside(runtime.world, place, region).length > 0,
    );
    const target = nearestOf(
      from,
      reachable.map((position) => ({ position })),
    )?.position;
    if (!target) return refuse(`${name} cannot be reached from where the agent stands`);
    if (chebyshev(from, target) <= range) return refuse(`the agent is already at ${name}`);
    const legs = planLegs(runtime.world, from, target, range);
    if (!legs) return refuse(`no path leads to ${name} from where the agent stands`);
    runtime.halt();
    runtime.begin(legsTask("navigateTo", legs));
    return OK;
  },
});
