// The skills phase: resources grow back and fires burn out, then every player standing in reach
// of their gathering, firemaking, cooking or metalwork target makes one attempt.
import { cook } from "./cooking.js";
import type { GameError } from "./errors.js";
import { isGameError } from "./errors.js";
import { attemptLight } from "./firemaking.js";
import { attemptGather } from "./gathering.js";
import { addItem, removeItem } from "./inventory.js";
import { makeOnce, metalworkProblem } from "./smithing.js";
import { chebyshev } from "./tile.js";
import type { Tile } from "./types.js";
import {
  ADJACENT,
  cookingProblem,
  firemakingRecipeFor,
  firePlaceProblem,
  gatheringTool,
  gatherProblem,
  makerOf,
} from "./world-actions.js";
import type { PlayerAction, PlayerEntity, StationEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";

/** Ticks between two cooked items, RuneScape's pace. */
export const COOK_TICKS = 4;
/** Ticks between two bars smelted or two items smithed, RuneScape's pace. */
export const SMITH_TICKS = 4;

/** Codes that mean the job is simply done (tree felled, food all cooked, bars all used): stop without an error. */
const FINISHED = new Set<GameError["code"]>(["depleted", "invalid_slot", "missing_materials"]);

export function runSkills(state: WorldState): void {
  for (const resource of state.depletedResources) {
    if (state.tick < resource.respawnTick!) continue;
    resource.respawnTick = undefined;
    state.depletedResources.delete(resource);
    state.entityChanged(resource.id);
  }
  for (const fire of state.fires) if (state.tick >= fire.expiresTick!) state.extinguish(fire);
  for (const player of state.players.values()) {
    const action = player.action;
    if (!action || player.path.length > 0) continue;
    if (action.kind === "gather") gather(state, player, action.resourceId);
    else if (action.kind === "light_fire") lightFire(state, player, action.logItemId);
    else if (action.kind === "cook") cookNext(state, player, action);
    else if (action.kind === "smith") smithNext(state, player, action);
  }
}

function stop(state: WorldState, player: PlayerEntity, problem: GameError): void {
  player.action = undefined;
  if (!FINISHED.has(problem.code)) state.fail(player, problem);
}

function gather(state: WorldState, player: PlayerEntity, resourceId: string): void {
  const resource = state.objects.get(resourceId);
  if (resource?.kind !== "resource" || !resource.gathering) return;
  if (chebyshev(player.position, resource.position) > ADJACENT) return;
  const gathering = resource.gathering;
  const problem = gatherProblem(state, player, resource, gathering.skill);
  if (problem) {
    stop(state, player, problem);
    return;
  }
  const tool = gatheringTool(state, player, resource)!;
  const level = player.character.skills[gathering.skill].level;
  const attempt = attemptGather(gathering, level, tool.tier, state.random);
  if (!attempt.success) return;
  const item = state.data.items.get(gathering.itemId)!;
  state.setInventory(player, addItem(player.character.inventory, item, 1).inventory);
  state.gainXp(player, gathering.skill, gathering.xp);
  if (attempt.depleted) {
    resource.respawnTick = state.tick + gathering.respawnTicks;
    state.depletedResources.add(resource);
    state.entityChanged(resource.id);
  }
}

function lightFire(state: WorldState, player: PlayerEntity, logItemId: string): void {
  const recipe = firemakingRecipeFor(state, player, logItemId);
  if (isGameError(recipe)) {
    stop(state, player, recipe);
    return;
  }
  const misplaced = firePlaceProblem(state, player);
  if (misplaced) {
    stop(state, player, misplaced);
    return;
  }
  const result = attemptLight(player.character.skills.firemaking.level, recipe, state.random);
  if (!result.lit) return;
  state.setInventory(player, removeItem(player.character.inventory, logItemId, 1).inventory);
  state.lightFire(player.position, result.burnTicks);
  state.gainXp(player, "firemaking", result.xp);
  player.action = undefined;
  stepAside(state, player);
}

/** After lighting a fire the player steps off it: west first, as in RuneScape. */
function stepAside(state: WorldState, player: PlayerEntity): void {
  const { x, z } = player.position;
  const aside: Tile[] = [
    { x: x - 1, z },
    { x: x + 1, z },
    { x, z: z - 1 },
    { x, z: z + 1 },
  ];
  const free = aside.find((tile) => state.map.isWalkable(tile.x, tile.z));
  if (free) state.moveTo(player, free);
}

/** The station a making action works at, once the player stands at it and its pace allows one more. */
function readyStation(state: WorldState, player: PlayerEntity, stationId: string): StationEntity | undefined {
  const station = state.objects.get(stationId);
  if (station?.kind !== "station") return undefined;
  const ready = chebyshev(player.position, station.position) <= ADJACENT && state.tick >= player.nextMakeTick;
  return ready ? station : undefined;
}

function cookNext(
  state: WorldState,
  player: PlayerEntity,
  action: Extract<PlayerAction, { kind: "cook" }>,
): void {
  const station = readyStation(state, player, action.stationId);
  if (!station) return;
  const problem = cookingProblem(state, player, action.rawItemId);
  if (problem) {
    stop(state, player, problem);
    return;
  }
  const recipe = state.data.cooking.get(action.rawItemId)!;
  const heat = station.def.type === "range" ? "range" : "fire";
  const result = cook(recipe, player.character.skills.cooking.level, heat, state.random);
  const product = state.data.items.get(result.itemId) ?? { id: result.itemId, stackable: false };
  const withoutRaw = removeItem(player.character.inventory, action.rawItemId, 1).inventory;
  const cooked = addItem(withoutRaw, product, 1);
  if (cooked.added === 0) {
    stop(state, player, { code: "inventory_full", message: "Your inventory is full." });
    return;
  }
  state.setInventory(player, cooked.inventory);
  if (result.xp > 0) state.gainXp(player, "cooking", result.xp);
  // A burn gives no XP: the line is all that tells it from a cook that did nothing.
  if (result.burnt) {
    const raw = state.data.items.get(action.rawItemId)?.name ?? action.rawItemId;
    state.tell(player, `You accidentally burn the ${raw.toLowerCase()}.`);
  }
  player.nextMakeTick = state.tick + COOK_TICKS;
}

function smithNext(
  state: WorldState,
  player: PlayerEntity,
  action: Extract<PlayerAction, { kind: "smith" }>,
): void {
  if (!readyStation(state, player, action.stationId)) return;
  const { recipe } = action;
  const problem = metalworkProblem(recipe, makerOf(state, player));
  if (problem) {
    stop(state, player, problem);
    return;
  }
  const product = state.data.items.get(recipe.output.itemId)!;
  const made = makeOnce(player.character.inventory, recipe, product);
  if (!made) {
    stop(state, player, { code: "inventory_full", message: "Your inventory is full." });
    return;
  }
  state.setInventory(player, made);
  state.gainXp(player, "smithing", recipe.xp);
  player.nextMakeTick = state.tick + SMITH_TICKS;
}
