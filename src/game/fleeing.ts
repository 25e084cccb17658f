// Fleeing: a player runs from the monsters fighting it. Monsters walk a tile a tick and give up at their
// leash, and a walking player does not strike back, so running (two tiles a tick) far enough away ends
// the fight.
import { findPathNear } from "./pathfinding.js";
import { chebyshev } from "./tile.js";
import type { Tile } from "./types.js";
import type { NpcEntity, PlayerEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";

/** The least a flight aims for, in tiles; farther when that is still within a chaser's leash. */
export const FLEE_TILES = 8;
/** The farthest a flight aims. */
const MAX_FLEE_TILES = 40;
/** A flight may end this close to its aim (the aim may be water or a wall). */
const FLEE_SLACK = 2;

const DIRECTIONS: readonly Tile[] = [
  { x: 1, z: 0 },
  { x: 1, z: 1 },
  { x: 0, z: 1 },
  { x: -1, z: 1 },
  { x: -1, z: 0 },
  { x: -1, z: -1 },
  { x: 0, z: -1 },
  { x: 1, z: -1 },
];

/** The living monsters fighting the player: those that target it, and the one it attacks. */
export function attackersOf(state: WorldState, player: PlayerEntity): NpcEntity[] {
  const attackers: NpcEntity[] = [];
  for (const npc of state.npcs.values()) if (npc.alive && npc.targetId === player.id) attackers.push(npc);
  const target = player.action?.kind === "attack" ? state.npcs.get(player.action.targetId) : undefined;
  if (target?.alive && !attackers.includes(target)) attackers.push(target);
  return attackers;
}

/**
 * A path away from the attackers. Each direction, the most directly away first, aims past every
 * attacker's leash; the first that gets there wins, else the first that at least gains ground.
 * Undefined when the player is cornered.
 */
export function fleePath(
  state: WorldState,
  player: PlayerEntity,
  attackers: readonly NpcEntity[],
): Tile[] | undefined {
  const from = player.position;
  const away = {
    x: from.x - attackers.reduce((sum, npc) => sum + npc.position.x, 0) / attackers.length,
    z: from.z - attackers.reduce((sum, npc) => sum + npc.position.z, 0) / attackers.length,
  };
  const awayness = (direction: Tile) => direction.x * away.x + direction.z * away.z;
  const escapes = (tile: Tile) => attackers.every((npc) => chebyshev(tile, npc.spawn) > npc.def.leashRange);
  const distance = (tile: Tile) => Math.min(...attackers.map((npc) => chebyshev(npc.position, tile)));
  let fallback: Tile[] | undefined;
  for (const direction of [...DIRECTIONS].sort((a, b) => awayness(b) - awayness(a))) {
    const aimAt = (tiles: number) => ({ x: from.x + direction.x * tiles, z: from.z + direction.z * tiles });
    let tiles = FLEE_TILES;
    while (tiles < MAX_FLEE_TILES && !escapes(aimAt(tiles))) tiles++;
    // Searched no farther than a flight goes: up to eight searches a flight, a move's is one.
    const path = findPathNear(state.map, from, aimAt(tiles + FLEE_SLACK), FLEE_SLACK, 2 * MAX_FLEE_TILES);
    const end = path?.at(-1);
    if (!path || !end || distance(end) <= distance(from)) continue;
    if (escapes(end)) return path;
    fallback ??= path;
  }
  return fallback;
}
