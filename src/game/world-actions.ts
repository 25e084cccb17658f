// The checks an action must pass, shared by submit (refuse at once), the input phase (re-check
// when applied) and the tick phases (stop when a check starts failing), plus where each action
// must stand.
import { cooksFood } from "./cooking.js";
import { type GameError, gameError } from "./errors.js";
import { bestTool, easiestTool } from "./gathering.js";
import { type GroundItem, isGroundItemVisible } from "./ground-items.js";
import { addItem, countItem } from "./inventory.js";
import type { Maker } from "./smithing.js";
import { chebyshev } from "./tile.js";
import type { FiremakingRecipe, GatheringSkill, ItemDef, Tile, ToolDef } from "./types.js";
import { nameableFrom } from "./view-index.js";
import type {
  NpcEntity,
  PlayerAction,
  PlayerEntity,
  ResourceEntity,
  StationEntity,
} from "./world-entities.js";
import type { WorldState } from "./world-state.js";
import { describeEntity } from "./world-view.js";

export const TINDERBOX_ITEM_ID = "tinderbox";
/** Reach of a ranged weapon, in tiles. Melee, gathering and cooking need an adjacent tile. */
export const RANGED_REACH = 7;
/** The longrange style's extra reach (RuneScape's). */
export const LONGRANGE_EXTRA_REACH = 2;
export const ADJACENT = 1;

function itemName(state: WorldState, itemId: string): string {
  return state.data.items.get(itemId)?.name ?? itemId;
}

/** Whether one more of the item fits (in a free slot or on its stack). */
export function hasRoomFor(state: WorldState, player: PlayerEntity, itemId: string): boolean {
  const item = state.data.items.get(itemId);
  return item !== undefined && addItem(player.character.inventory, item, 1).added > 0;
}

/**
 * The entity the player names, if the player is sent it (or was, a moment ago: see nameableFrom): what
 * lies beyond is refused as if it were not there, before anything is said of it, or a client could map
 * the world by guessing ids.
 */
export function seenTarget<T extends { position: Tile }>(
  player: PlayerEntity,
  entities: { get(id: string): T | undefined },
  id: string | undefined,
): T | undefined {
  const entity = id === undefined ? undefined : entities.get(id);
  return entity && nameableFrom(player.position, entity.position) ? entity : undefined;
}

/**
 * The refusal of an action whose target is not of a kind it applies to: `invalid_target`, naming it, when
 * the player sees an entity of that id (attacking a tree, chopping a banker); `not_found` with `missing`
 * otherwise, which says nothing of what the player does not see.
 */
export function unfitTarget(
  state: WorldState,
  player: PlayerEntity,
  id: string | undefined,
  verb: string,
  missing: string,
): GameError {
  const entity = id === undefined ? undefined : describeEntity(state, id);
  const item = id === undefined ? undefined : state.groundItems.get(id);
  const seen =
    entity !== undefined &&
    nameableFrom(player.position, entity.position) &&
    (item === undefined || isGroundItemVisible(item, player.id, state.tick));
  return seen
    ? gameError("invalid_target", `You cannot ${verb} ${entity.name}.`)
    : gameError("not_found", missing);
}

export function attackableNpc(
  state: WorldState,
  player: PlayerEntity,
  targetId: string | undefined,
): NpcEntity | GameError {
  const npc = seenTarget(player, state.npcs, targetId);
  if (!npc)
    return unfitTarget(state, player, targetId, "attack", `There is no ${targetId ?? "target"} to attack.`);
  if (!npc.def.combat) return gameError("invalid_target", `You cannot attack ${npc.def.name}.`);
  if (!npc.alive) return gameError("dead", `${npc.def.name} is dead.`);
  return npc;
}

/** Why the player cannot gather from `resource` with `skill` now, if anything stops it. */
export function gatherProblem(
  state: WorldState,
  player: PlayerEntity,
  resource: ResourceEntity,
  skill: GatheringSkill,
): GameError | undefined {
  const gathering = resource.gathering;
  if (!gathering || gathering.skill !== skill) {
    return gameError("invalid_target", `You cannot use ${skill} on ${resource.def.name}.`);
  }
  if (resource.respawnTick !== undefined) return gameError("depleted", `${resource.def.name} is depleted.`);
  const level = player.character.skills[skill].level;
  if (level < gathering.levelRequired) {
    return gameError(
      "level_too_low",
      `You need ${skill} level ${gathering.levelRequired} for ${resource.def.name}.`,
    );
  }
  if (!gatheringTool(state, player, resource)) {
    // A tool held but above the player's level is a level to reach, not a tool to find.
    const held = easiestTool(heldItemIds(player), skill, gathering.toolKind, state.data.tools);
    if (held) {
      const name = state.data.items.get(held.itemId)?.name ?? held.itemId;
      return gameError("level_too_low", `You need ${skill} level ${held.levelRequired} to use the ${name}.`);
    }
    const tool = gathering.toolKind.replace("_", " ");
    return gameError(
      "no_tool",
      `You need ${/^[aeiou]/.test(tool) ? "an" : "a"} ${tool} for ${resource.def.name}.`,
    );
  }
  if (!hasRoomFor(state, player, gathering.itemId))
    return gameError("inventory_full", "Your inventory is full.");
  return undefined;
}

export function gatheringTool(
  state: WorldState,
  player: PlayerEntity,
  resource: ResourceEntity,
): ToolDef | undefined {
  const gathering = resource.gathering;
  if (!gathering) return undefined;
  return bestTool(
    heldItemIds(player),
    gathering.skill,
    gathering.toolKind,
    state.levels(player),
    state.data.tools,
  );
}

/** What the player carries and wears, by item: the tools it may use. */
function heldItemIds(player: PlayerEntity): string[] {
  return [
    ...player.character.inventory.map((entry) => entry.itemId),
    ...Object.values(player.character.equipment),
  ];
}

export function visibleGroundItem(
  state: WorldState,
  player: PlayerEntity,
  id: string | undefined,
): GroundItem | GameError {
  const item = seenTarget(player, state.groundItems, id);
  if (!item || !isGroundItemVisible(item, player.id, state.tick)) {
    return unfitTarget(state, player, id, "pick up", `There is no ${id ?? "item"} here.`);
  }
  if (!hasRoomFor(state, player, item.itemId)) return gameError("inventory_full", "Your inventory is full.");
  return item;
}

/** The logs recipe of an inventory item, when the player may light it now; else why not. */
export function firemakingRecipeFor(
  state: WorldState,
  player: PlayerEntity,
  logItemId: string,
): FiremakingRecipe | GameError {
  const recipe = state.data.firemaking.get(logItemId);
  if (!recipe) return gameError("invalid_target", `You cannot light ${itemName(state, logItemId)}.`);
  if (countItem(player.character.inventory, logItemId) === 0) {
    return gameError("invalid_slot", `You have no ${itemName(state, logItemId)}.`);
  }
  if (countItem(player.character.inventory, TINDERBOX_ITEM_ID) === 0) {
    return gameError("no_tool", "You need a tinderbox to light a fire.");
  }
  if (player.character.skills.firemaking.level < recipe.levelRequired) {
    return gameError(
      "level_too_low",
      `You need firemaking level ${recipe.levelRequired} to light these logs.`,
    );
  }
  return recipe;
}

/** Why no fire may be lit where the player stands, if one may not: in a town (a safe zone), or on a fire. */
export function firePlaceProblem(state: WorldState, player: PlayerEntity): GameError | undefined {
  const { x, z } = player.position;
  if (state.map.areaAt(x, z)?.safeZone)
    return gameError("cannot_light_here", "You cannot light a fire in town: light it outside.");
  if (state.fireAt(player.position)) return gameError("cannot_light_here", "A fire already burns here.");
  return undefined;
}

export function isCookingStation(station: StationEntity): boolean {
  return cooksFood(station.def);
}

/** Why the player cannot cook `rawItemId` now (no recipe, none carried, too low a level), if anything stops it. */
export function cookingProblem(
  state: WorldState,
  player: PlayerEntity,
  rawItemId: string,
): GameError | undefined {
  const recipe = state.data.cooking.get(rawItemId);
  if (!recipe) return gameError("invalid_target", `You cannot cook ${itemName(state, rawItemId)}.`);
  if (countItem(player.character.inventory, rawItemId) === 0) {
    return gameError("invalid_slot", `You have no ${itemName(state, rawItemId)}.`);
  }
  if (player.character.skills.cooking.level < recipe.levelRequired) {
    return gameError("level_too_low", `You need cooking level ${recipe.levelRequired} to cook this.`);
  }
  return undefined;
}

/** The player as a smithing recipe sees it. */
export function makerOf(state: WorldState, player: PlayerEntity): Maker {
  return {
    level: player.character.skills.smithing.level,
    inventory: player.character.inventory,
    nameOf: (itemId) => itemName(state, itemId),
  };
}

/** The fire or range nearest to the player within view distance (always nameable: see nameableFrom). */
export function nearestCookingStation(state: WorldState, player: PlayerEntity): StationEntity | undefined {
  let nearest: StationEntity | undefined;
  let nearestDistance = Number.POSITIVE_INFINITY;
  state.objectGrid.forEachWithin(player.position, state.viewDistance, (object) => {
    if (object.kind !== "station" || !isCookingStation(object)) return;
    const distance = chebyshev(object.position, player.position);
    if (distance < nearestDistance) {
      nearest = object;
      nearestDistance = distance;
    }
  });
  return nearest;
}

/** How far the player's weapon reaches over a clear line: a bow RANGED_REACH tiles (2 more in the longrange style). */
export function weaponReach(state: WorldState, player: PlayerEntity): number {
  const weaponId = player.character.equipment.weapon;
  const weapon: ItemDef | undefined = weaponId === undefined ? undefined : state.data.items.get(weaponId);
  if (weapon?.combatType !== "ranged") return ADJACENT;
  return player.style === "longrange" ? RANGED_REACH + LONGRANGE_EXTRA_REACH : RANGED_REACH;
}

/**
 * How near the player must stand to attack a target on `tile`: its weapon's reach over a clear line
 * (see WorldMap.hasClearLine); with a wall, a tree or a rock in the way an archer walks on, until a line
 * clears or it stands next to the target.
 */
export function attackReach(state: WorldState, player: PlayerEntity, tile: Tile): number {
  const reach = weaponReach(state, player);
  return reach > ADJACENT && !state.map.hasClearLine(player.position, tile) ? ADJACENT : reach;
}

export type ActionTarget = { position: Tile; reach: number } | "untargeted" | "gone";

/** Where the action's target is and how near the player must stand; a gone target ends the action. */
export function actionTarget(state: WorldState, player: PlayerEntity, action: PlayerAction): ActionTarget {
  switch (action.kind) {
    case "attack": {
      const npc = state.npcs.get(action.targetId);
      return npc?.alive
        ? { position: npc.position, reach: attackReach(state, player, npc.position) }
        : "gone";
    }
    case "gather":
    case "cook":
    case "smith": {
      const object = state.objects.get(action.kind === "gather" ? action.resourceId : action.stationId);
      return object ? { position: object.position, reach: ADJACENT } : "gone";
    }
    case "pickup": {
      const item = state.groundItems.get(action.itemId);
      return item ? { position: item.position, reach: 0 } : "gone";
    }
    case "light_fire":
      return "untargeted";
  }
}
