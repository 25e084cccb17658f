// Where an agent goes: the nearest of what it sees, and a walk beside a place the map names.
import type { WorldMap } from "../../game/map.js";
import { MAX_PATH_LENGTH } from "../../game/pathfinding.js";
import { chebyshev, NEIGHBOURS } from "../../game/tile.js";
import type { Tile } from "../../game/types.js";
import type { AgentView, SeenEntity, Step } from "../brain.js";

/**
 * Walks beside the nearest of `places` that one move reaches (the interface's navigateTo). Undefined when there
 * is none, or when the agent already stands beside it: it waits there (for a respawn).
 */
export function walkTowards(view: AgentView, places: readonly Tile[], map: WorldMap): Step | undefined {
  const from = view.self.position;
  const region = map.regionAt(from.x, from.z);
  const tile = nearestTile(
    from,
    places
      .flatMap((place) => besideTiles(place, map))
      .filter((tile) => chebyshev(tile, from) <= MAX_PATH_LENGTH && map.regionAt(tile.x, tile.z) === region),
  );
  if (!tile || chebyshev(tile, from) === 0) return undefined;
  return { event: "player:move", data: { x: tile.x, z: tile.z } };
}

/** The walkable tiles around a place (a booth, a tree: they stand on tiles nobody walks onto). */
function besideTiles(place: Tile, map: WorldMap): Tile[] {
  return NEIGHBOURS.map(([dx, dz]) => ({ x: place.x + dx, z: place.z + dz })).filter((tile) =>
    map.isWalkable(tile.x, tile.z),
  );
}

/** The key of a place in AgentView.comesBack. */
export function placeKey({ x, z }: Tile): string {
  return `${x},${z}`;
}

/**
 * Walks beside the place whose resource is there soonest: the later of its walk (a tile a tick) and its
 * respawn as the agent last saw it (AgentView.comesBack), nearer first on a tie. A place in view
 * without a known respawn is depleted for an unknown time: it is left out. Undefined when the agent
 * already stands beside the soonest: it waits there.
 */
export function walkToSoonest(view: AgentView, places: readonly Tile[], map: WorldMap): Step | undefined {
  const from = view.self.position;
  const inView = new Set(view.entities.map(({ position }) => placeKey(position)));
  const soonest = new Map<number, Tile[]>();
  for (const place of places) {
    const back = view.comesBack?.get(placeKey(place));
    if (back === undefined && inView.has(placeKey(place))) continue;
    const wait = back === undefined ? 0 : back - (view.tick ?? 0);
    const ready = Math.max(chebyshev(place, from), wait);
    soonest.set(ready, [...(soonest.get(ready) ?? []), place]);
  }
  for (const ready of [...soonest.keys()].sort((a, b) => a - b)) {
    const group = soonest.get(ready)!;
    if (group.some((place) => chebyshev(place, from) <= 1)) return undefined;
    const step = walkTowards(view, group, map);
    if (step) return step;
  }
  return undefined;
}

function nearestTile(from: Tile, tiles: readonly Tile[]): Tile | undefined {
  return [...tiles].sort((a, b) => chebyshev(a, from) - chebyshev(b, from))[0];
}

export function nearest(view: AgentView, candidates: readonly SeenEntity[]): SeenEntity | undefined {
  let best: SeenEntity | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const entity of candidates) {
    const distance = chebyshev(entity.position, view.self.position);
    if (distance < bestDistance) [best, bestDistance] = [entity, distance];
  }
  return best;
}
