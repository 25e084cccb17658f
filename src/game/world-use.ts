// `use`: an item used on another item, on a station, or alone (eaten, buried or worn).
import { equip } from "./equipment.js";
import { gameError, isGameError } from "./errors.js";
import { entryAt, removeFromSlot } from "./inventory.js";
import { chooseMetalRecipe, isMetalStation, metalworkProblem } from "./smithing.js";
import { BURY_TICKS, EAT_TICKS } from "./types.js";
import {
  cookingProblem,
  isCookingStation,
  makerOf,
  seenTarget,
  TINDERBOX_ITEM_ID,
  unfitTarget,
} from "./world-actions.js";
import type { PlayerEntity } from "./world-entities.js";
import { type Change, type Plan, planLight, start } from "./world-plans.js";
import type { WorldState } from "./world-state.js";
import type { Intent } from "./world-types.js";

const nothingHappens = () => gameError("invalid_target", "Nothing interesting happens.");

/**
 * Use an item: on another item (logs with a tinderbox), on a fire or range (raw food), on a furnace
 * (ore) or an anvil (bars), or alone (eat, bury or wear).
 */
export function planUse(
  state: WorldState,
  player: PlayerEntity,
  intent: Extract<Intent, { type: "use" }>,
): Plan {
  const entry = entryAt(player.character.inventory, intent.inventorySlot);
  if (!entry) return gameError("invalid_slot", `Inventory slot ${intent.inventorySlot} is empty.`);
  if (intent.targetSlot !== undefined) {
    const other = entryAt(player.character.inventory, intent.targetSlot);
    if (!other) return gameError("invalid_slot", `Inventory slot ${intent.targetSlot} is empty.`);
    const logs =
      entry.itemId === TINDERBOX_ITEM_ID ? other : other.itemId === TINDERBOX_ITEM_ID ? entry : undefined;
    if (!logs || !state.data.firemaking.has(logs.itemId)) return nothingHappens();
    return planLight(state, player, logs.itemId);
  }
  if (intent.targetId !== undefined) {
    const station = seenTarget(player, state.objects, intent.targetId);
    if (!station)
      return unfitTarget(
        state,
        player,
        intent.targetId,
        "use that on",
        `There is no ${intent.targetId} here.`,
      );
    if (station.kind === "station" && isMetalStation(station.def.type)) {
      const maker = makerOf(state, player);
      const recipes = [...state.data.smelting, ...state.data.smithing];
      const recipe = chooseMetalRecipe(recipes, station.def.type, entry.itemId, intent.productId, maker);
      if (isGameError(recipe)) return recipe;
      return (
        metalworkProblem(recipe, maker) ?? start(player, { kind: "smith", recipe, stationId: station.id })
      );
    }
    if (station.kind !== "station" || !isCookingStation(station)) return nothingHappens();
    const problem = cookingProblem(state, player, entry.itemId);
    return problem ?? start(player, { kind: "cook", rawItemId: entry.itemId, stationId: station.id });
  }
  const item = state.data.items.get(entry.itemId);
  if (item?.heals !== undefined) {
    const heals = item.heals;
    return useUp(
      state,
      player,
      entry.slot,
      { pace: "nextEatTick", ticks: EAT_TICKS, doing: "eating" },
      () => {
        state.setHealth(player, player.character.health + heals);
        // RuneScape's price for a bite: the next swing comes 3 ticks later, so eating is never free in a fight.
        player.nextAttackTick = Math.max(player.nextAttackTick, state.tick) + EAT_TICKS;
      },
    );
  }
  if (item?.buryXp !== undefined) {
    const xp = item.buryXp;
    return useUp(
      state,
      player,
      entry.slot,
      { pace: "nextBuryTick", ticks: BURY_TICKS, doing: "burying" },
      () => state.gainXp(player, "prayer", xp),
    );
  }
  const outfit = equip(
    player.character.inventory,
    player.character.equipment,
    entry.slot,
    state.data.items,
    state.levels(player),
  );
  return isGameError(outfit) ? outfit : () => state.setOutfit(player, outfit);
}

/** How often an item may be used up: once every `ticks`, the next tick kept on the player under `pace`. */
interface UsePace {
  pace: "nextEatTick" | "nextBuryTick";
  ticks: number;
  doing: string;
}

/** Takes one of the slot's item and applies `effect`, at the item's pace: one at a time. */
function useUp(
  state: WorldState,
  player: PlayerEntity,
  slot: number,
  { pace, ticks, doing }: UsePace,
  effect: () => void,
): Change {
  return () => {
    // Checked as the tick applies it: a use queued during the last one is refused then.
    if (state.tick < player[pace]) {
      state.fail(player, gameError("too_soon", `You are still ${doing}.`));
      return;
    }
    player[pace] = state.tick + ticks;
    state.setInventory(player, removeFromSlot(player.character.inventory, slot, 1).inventory);
    effect();
  };
}
