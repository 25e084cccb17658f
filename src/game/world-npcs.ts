// The NPC phase: respawn the dead, heal the hurt slowly, let aggressive monsters pick a target,
// chase (up to the leash), and let idle NPCs wander near their spawn. NPCs step greedily towards
// their goal, as RuneScape's do, which is cheap enough for thousands of them.
import { HEALTH_REGEN_TICKS } from "./combat.js";
import { combatLevel, skillLevels } from "./combat-level.js";
import { randomInt } from "./random.js";
import { chebyshev } from "./tile.js";
import type { Tile } from "./types.js";
import type { NpcEntity, PlayerEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";

/** Chance per tick that an idle NPC sets off towards a new spot. */
const WANDER_CHANCE = 1 / 8;

export function updateNpcs(state: WorldState): void {
  for (const npc of state.deadNpcs) if (state.tick >= npc.respawnTick) respawn(state, npc);
  const regenerates = state.tick % HEALTH_REGEN_TICKS === 0;
  for (const npc of state.npcs.values()) {
    if (!npc.alive) continue;
    if (regenerates) regenerate(state, npc);
    if (npc.targetId === undefined && npc.def.aggressive) npc.targetId = findPrey(state, npc)?.id;
    if (npc.targetId !== undefined) chase(state, npc, npc.targetId);
    else wander(state, npc);
  }
}

function respawn(state: WorldState, npc: NpcEntity): void {
  state.deadNpcs.delete(npc);
  npc.alive = true;
  npc.health = npc.maxHealth;
  npc.position.x = npc.spawn.x;
  npc.position.z = npc.spawn.z;
  npc.wanderGoal = undefined;
  state.npcGrid.insert(npc);
  state.entityChanged(npc.id);
}

/** A monster worn down and left alone heals, so it does not stay a blow from death for the next comer. */
function regenerate(state: WorldState, npc: NpcEntity): void {
  if (npc.health === undefined || npc.maxHealth === undefined || npc.health >= npc.maxHealth) return;
  npc.health += 1;
  // Healed whole, it owes its loot to no one who wore it down before: a kill now is the killer's alone.
  if (npc.health === npc.maxHealth) npc.damageBy.clear();
  state.entityChanged(npc.id);
}

/** RuneScape's rule: monsters ignore players of more than twice their combat level, and safe zones. */
function findPrey(state: WorldState, npc: NpcEntity): PlayerEntity | undefined {
  let prey: PlayerEntity | undefined;
  let preyDistance = Number.POSITIVE_INFINITY;
  state.playerGrid.forEachWithin(npc.position, npc.def.aggroRange, (player) => {
    const distance = chebyshev(player.position, npc.position);
    if (distance >= preyDistance || chebyshev(player.position, npc.spawn) > npc.def.leashRange) return;
    if (combatLevel(skillLevels(player.character.skills)) > 2 * npc.def.combatLevel) return;
    if (state.map.areaAt(player.position.x, player.position.z)?.safeZone) return;
    prey = player;
    preyDistance = distance;
  });
  return prey;
}

function chase(state: WorldState, npc: NpcEntity, targetId: string): void {
  const target = state.players.get(targetId);
  if (!target || chebyshev(target.position, npc.spawn) > npc.def.leashRange) {
    npc.targetId = undefined;
    npc.wanderGoal = { ...npc.spawn };
    return;
  }
  if (chebyshev(npc.position, target.position) > 1) stepTowards(state, npc, target.position);
}

function wander(state: WorldState, npc: NpcEntity): void {
  if (!npc.wanderGoal && npc.def.wanderRadius > 0 && state.random() < WANDER_CHANCE) {
    const radius = npc.def.wanderRadius;
    npc.wanderGoal = {
      x: npc.spawn.x + randomInt(state.random, -radius, radius),
      z: npc.spawn.z + randomInt(state.random, -radius, radius),
    };
  }
  const goal = npc.wanderGoal;
  if (!goal) return;
  if (chebyshev(npc.position, goal) === 0 || !stepTowards(state, npc, goal)) npc.wanderGoal = undefined;
}

/** One step straight or diagonally towards `goal`, sliding along an axis when blocked. */
function stepTowards(state: WorldState, npc: NpcEntity, goal: Tile): boolean {
  const dx = Math.sign(goal.x - npc.position.x);
  const dz = Math.sign(goal.z - npc.position.z);
  const options: Tile[] = [
    { x: npc.position.x + dx, z: npc.position.z + dz },
    { x: npc.position.x + dx, z: npc.position.z },
    { x: npc.position.x, z: npc.position.z + dz },
  ];
  for (const next of options) {
    const moves = next.x !== npc.position.x || next.z !== npc.position.z;
    if (moves && state.map.canStep(npc.position, next)) {
      npc.position.x = next.x;
      npc.position.z = next.z;
      state.npcGrid.update(npc);
      state.entityChanged(npc.id);
      return true;
    }
  }
  return false;
}
