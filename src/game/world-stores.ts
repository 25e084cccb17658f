// Store intents: looking at a shopkeeper's stock, buying from it and selling to it, standing beside it.
import { type GameError, gameError, isGameError } from "./errors.js";
import { entryAt } from "./inventory.js";
import {
  buyFrom,
  closeDeal,
  type Deal,
  RESTOCK_TICKS,
  restock,
  type StoreShelf,
  sellTo,
  shelfView,
} from "./stores.js";
import { chebyshev } from "./tile.js";
import { seenTarget, unfitTarget } from "./world-actions.js";
import type { NpcEntity, PlayerEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";
import type { Intent } from "./world-types.js";

/** Shopkeepers serve who stands next to them, as bankers do. */
export const STORE_REACH = 1;

export type StoreIntent = Extract<Intent, { type: "storeOpen" | "storeBuy" | "storeSell" }>;

interface Counter {
  keeper: NpcEntity;
  shelf: StoreShelf;
}

/** The store of the shopkeeper the player names, if the player stands at its counter. */
function counterOf(state: WorldState, player: PlayerEntity, targetId: string): Counter | GameError {
  const keeper = seenTarget(player, state.npcs, targetId);
  const shelf = keeper?.alive ? state.stores.get(keeper.def.id) : undefined;
  if (!keeper || !shelf)
    return unfitTarget(state, player, targetId, "trade with", `There is no ${targetId} here.`);
  if (chebyshev(player.position, keeper.position) > STORE_REACH)
    return gameError("too_far", `You need to stand next to ${keeper.def.name}.`);
  return { keeper, shelf };
}

export function planStore(
  state: WorldState,
  player: PlayerEntity,
  intent: StoreIntent,
): (() => void) | GameError {
  const counter = counterOf(state, player, intent.targetId);
  if (isGameError(counter)) return counter;
  const { keeper, shelf } = counter;
  if (intent.type === "storeOpen")
    return () => {
      player.browsing = keeper.id;
      state.showStore(player, shelfView(shelf, keeper.id), true);
    };
  const deal =
    intent.type === "storeBuy"
      ? planBuy(state, player, shelf, intent)
      : planSell(state, player, shelf, intent);
  if (isGameError(deal)) return deal;
  return () => {
    closeDeal(shelf, deal);
    state.setInventory(player, deal.inventory);
    if (deal.short) state.tell(player, deal.short);
    // Shown, with everyone else at this counter, once the tick's deals and restocking are done.
    player.browsing = keeper.id;
    state.changedShelves.add(shelf);
  };
}

function planBuy(
  state: WorldState,
  player: PlayerEntity,
  shelf: StoreShelf,
  { itemId, quantity }: Extract<StoreIntent, { type: "storeBuy" }>,
): Deal | GameError {
  const item = state.data.items.get(itemId);
  if (!item) return gameError("not_found", `${shelf.def.name} does not sell ${itemId}.`);
  return buyFrom(shelf, player.character.inventory, item, quantity);
}

function planSell(
  state: WorldState,
  player: PlayerEntity,
  shelf: StoreShelf,
  { inventorySlot, quantity }: Extract<StoreIntent, { type: "storeSell" }>,
): Deal | GameError {
  const { inventory } = player.character;
  const entry = entryAt(inventory, inventorySlot);
  const item = entry && state.data.items.get(entry.itemId);
  if (!item) return gameError("invalid_slot", `Inventory slot ${inventorySlot} is empty.`);
  return sellTo(shelf, inventory, inventorySlot, quantity, item);
}

/**
 * Stores restock: each stock moves a unit back towards its own every restock interval. Then each
 * player at a counter whose stock changed this tick (a deal of theirs or another's, a restock) is
 * shown it, so a store's window never shows what is gone; a player who walked away is not.
 */
export function tendStores(state: WorldState): void {
  if (state.tick % RESTOCK_TICKS === 0)
    for (const shelf of state.stores.values()) if (restock(shelf)) state.changedShelves.add(shelf);
  if (state.changedShelves.size === 0) return;
  for (const player of state.players.values()) {
    if (player.browsing === undefined) continue;
    const keeper = state.npcs.get(player.browsing);
    const shelf = keeper && state.stores.get(keeper.def.id);
    if (!keeper || !shelf || chebyshev(player.position, keeper.position) > STORE_REACH) {
      player.browsing = undefined;
      continue;
    }
    if (state.changedShelves.has(shelf)) state.showStore(player, shelfView(shelf, keeper.id), false);
  }
  state.changedShelves.clear();
}
