// The items phase: players standing on the item they walked to pick it up, then ground items
// turn public after their owner-only window (an untradeable one never does) and vanish when they expire.
import { isGameError } from "./errors.js";
import { pickUp } from "./ground-items.js";
import { sameTile } from "./tile.js";
import { visibleGroundItem } from "./world-actions.js";
import type { PlayerEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";

export function updateGroundItems(state: WorldState): void {
  for (const player of state.players.values()) {
    if (player.action?.kind === "pickup" && player.path.length === 0)
      pickUpAt(state, player, player.action.itemId);
  }
  state.groundItems.advance(
    state.tick,
    (item) => state.entityChanged(item.id),
    (item) => state.removeGroundItem(item),
  );
}

function pickUpAt(state: WorldState, player: PlayerEntity, itemId: string): void {
  const item = visibleGroundItem(state, player, itemId);
  if (isGameError(item)) {
    player.action = undefined;
    state.fail(player, item);
    return;
  }
  if (!sameTile(item.position, player.position)) return;
  player.action = undefined;
  const taken = pickUp(player.character.inventory, item, state.data.items.get(item.itemId)!);
  if (isGameError(taken)) {
    state.fail(player, taken);
    return;
  }
  state.setInventory(player, taken.inventory);
  if (taken.taken === item.quantity) {
    state.removeGroundItem(item);
  } else {
    item.quantity -= taken.taken;
    state.entityChanged(item.id);
  }
}
