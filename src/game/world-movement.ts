// The players phase: walk into reach of the current action's target, then advance along the
// path, one tile a tick walking and two running while run energy lasts. Health regenerates slowly
// here too, and run energy comes back to those not running.
import { HEALTH_REGEN_TICKS } from "./combat.js";
import { gameError } from "./errors.js";
import { findPath, findPathNear } from "./pathfinding.js";
import { energyAfterTick, runEnergy } from "./run-energy.js";
import { chebyshev } from "./tile.js";
import type { Tile } from "./types.js";
import { type ActionTarget, actionTarget, weaponReach } from "./world-actions.js";
import type { PlayerEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";

export function movePlayers(state: WorldState): void {
  const regenerates = state.tick % HEALTH_REGEN_TICKS === 0;
  for (const player of state.players.values()) {
    if (regenerates && player.character.health < state.maxHealth(player)) {
      state.setHealth(player, player.character.health + 1);
    }
    if (player.action) approachTarget(state, player);
    const ran = advance(state, player);
    state.setRunEnergy(player, energyAfterTick(runEnergy(player.character), ran));
  }
}

/** Keeps the path ending within reach of the action's target, which may have moved. */
function approachTarget(state: WorldState, player: PlayerEntity): void {
  const target = actionTarget(state, player, player.action!);
  if (target === "untargeted") return;
  if (target === "gone") {
    // A fire that burned out under the pot is news; a monster or an item gone shows in the world update.
    if (player.action!.kind === "cook") state.fail(player, gameError("not_found", "The fire has gone out."));
    player.action = undefined;
    player.path = [];
    return;
  }
  if (chebyshev(player.position, target.position) <= target.reach) {
    player.path = [];
    return;
  }
  const end = player.path[player.path.length - 1];
  if (end && endsInReach(state, player, end, target)) return;
  const path = pathWithinReach(state, player, target);
  if (path) {
    player.path = path;
  } else {
    player.action = undefined;
    state.fail(player, gameError("no_path", "You cannot reach that."));
  }
}

/** An action's target that is there, with how near the player must stand. */
type ActionReach = Exclude<ActionTarget, "untargeted" | "gone">;

/**
 * Whether a path ending on `end` still brings the player into reach: next to the target, or, for an
 * archer on its way to a tile with a clear line (see pathWithinReach), within its bow's reach of it.
 */
function endsInReach(state: WorldState, player: PlayerEntity, end: Tile, target: ActionReach): boolean {
  const distance = chebyshev(end, target.position);
  if (distance <= target.reach) return true;
  return (
    player.action?.kind === "attack" &&
    distance <= weaponReach(state, player) &&
    state.map.hasClearLine(end, target.position)
  );
}

/** How far an archer that cannot walk up to its target searches for a tile with a clear line to it. */
const SIGHTLINE_SEARCH_STEPS = 20;

function pathWithinReach(state: WorldState, player: PlayerEntity, target: ActionReach): Tile[] | undefined {
  const path = findPathNear(state.map, player.position, target.position, target.reach);
  if (path || player.action?.kind !== "attack") return path;
  // An archer whose line is blocked and who cannot stand next to its target (across water, say) looks
  // for a tile within its bow's reach with a clear line.
  const reach = weaponReach(state, player);
  if (reach <= target.reach) return undefined;
  return findPathNear(state.map, player.position, target.position, reach, SIGHTLINE_SEARCH_STEPS, (x, z) =>
    state.map.hasClearLine({ x, z }, target.position),
  );
}

/** Takes the tick's steps along the path; true if the player ran (which spends run energy). */
function advance(state: WorldState, player: PlayerEntity): boolean {
  if (player.path.length === 0) return false;
  // Out of energy, a run goes on at a walk (RuneScape switches running off).
  if (player.running && runEnergy(player.character) === 0) player.running = false;
  const steps = player.running ? 2 : 1;
  for (let step = 0; step < steps && player.path.length > 0; step++) {
    if (!state.map.canStep(player.position, player.path[0]!)) {
      const goal = player.path[player.path.length - 1]!;
      player.path = findPath(state.map, player.position, goal) ?? [];
    }
    const next = player.path.shift();
    if (!next) {
      state.fail(player, gameError("no_path", "Your way is blocked."));
      return step > 0 && player.running;
    }
    state.moveTo(player, next);
  }
  return player.running;
}
