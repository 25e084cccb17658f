// How the REST API shows a stored character: the same shapes the WorldRoom sends for an online one.
import { maxHealth } from "../game/character.js";
import { countItem } from "../game/inventory.js";
import type { AreaDef, CharacterState, Tile } from "../game/types.js";
import type { PlayerSync } from "../game/world-types.js";
import { COINS_ITEM_ID } from "../game/world-view.js";

export function playerSyncOf(state: CharacterState): PlayerSync {
  return {
    id: state.id,
    name: state.name,
    position: { ...state.position },
    health: state.health,
    maxHealth: maxHealth(state),
    skills: state.skills,
    inventory: state.inventory,
    equipment: state.equipment,
    coins: countItem(state.inventory, COINS_ITEM_ID),
  };
}

export function areaAt(tile: Tile, areas: readonly AreaDef[]): AreaDef | undefined {
  return areas.find(
    ({ bounds }) =>
      tile.x >= bounds.minX && tile.x <= bounds.maxX && tile.z >= bounds.minZ && tile.z <= bounds.maxZ,
  );
}
