// What the fuzz test's count of items allows for: items that come into the count or leave it other than
// through the players' hands. Ground items despawn a while after they fell (DESPAWN_TICKS): those that
// do during a run are gone, not lost. Stores take and give items and coins: the ledger notes each deal
// as the world makes it (the player's inventory before and after it), counts the coins it must have
// cost or paid at the manifest's prices, and follows each store's shelf, checking that deals and
// restocks move it as the rules say. Whatever else made or lost an item or a coin shows in the count.
import type { InventoryEntry } from "../../src/game/character-state.js";
import type { StoreShelf } from "../../src/game/stores.js";
import { COINS_ITEM_ID, MAX_STACK } from "../../src/game/types.js";
import type { World } from "../../src/game/world.js";
import type { PlayerEntity } from "../../src/game/world-entities.js";
import type { WorldState } from "../../src/game/world-state.js";

/** docs/protocol.md: a store pays 40 % of an item's manifest value, rounded down. */
const sellPrice = (value: number) => Math.floor((value * 2) / 5);

export class ItemLedger {
  /** Units of each item, coins included, that came into the count during the run, less those that left it. */
  readonly flows = new Map<string, number>();
  /** Each deal or restock that left a shelf otherwise than the rules say, described. */
  readonly problems: string[] = [];
  /** How many deals bought or sold each item ("bought hammer"), for a run's summary. */
  readonly deals = new Map<string, number>();
  private readonly state: WorldState;
  /** Each shelf's stock as the rules have it after the deals and restocks so far. */
  private readonly shelves: Map<StoreShelf, Map<string, number>>;
  /** The inventory the world replaced last, and whose: a deal replaces the player's first. */
  private lastInventory?: { player: PlayerEntity; before: readonly InventoryEntry[] };
  private watching = true;

  /**
   * Watches the world from now on. A deal and a restock each end by marking their shelf changed, and
   * the world applies a player's queued deal only while it applies that player's intents: a shelf
   * marked meanwhile was dealt at, one marked outside that restocked.
   */
  constructor(world: World) {
    const state = (world as unknown as { state: WorldState }).state;
    this.state = state;
    const ground = state.groundItems;
    const advance = ground.advance.bind(ground);
    ground.advance = (tick, onPublic, onDespawn) =>
      advance(tick, onPublic, (item) => {
        this.flow(item.itemId, -item.quantity);
        onDespawn(item);
      });
    this.shelves = new Map([...state.stores.values()].map((shelf) => [shelf, new Map(shelf.stock)]));
    const setInventory = state.setInventory.bind(state);
    state.setInventory = (player, inventory) => {
      this.lastInventory = { player, before: player.character.inventory };
      setInventory(player, inventory);
    };
    const changed = state.changedShelves;
    const add = changed.add.bind(changed);
    changed.add = (shelf) => {
      const player = state.applyingPlayer;
      if (player) this.dealt(shelf, player);
      else this.restocked(shelf);
      return add(shelf);
    };
  }

  /** Stops watching (again does nothing), and checks that no shelf changed since its last deal or restock. */
  stop(): void {
    if (!this.watching) return;
    this.watching = false;
    Reflect.deleteProperty(this.state.groundItems, "advance");
    Reflect.deleteProperty(this.state, "setInventory");
    Reflect.deleteProperty(this.state.changedShelves, "add");
    for (const shelf of this.shelves.keys()) this.check(shelf, "after the run");
  }

  private dealt(shelf: StoreShelf, player: PlayerEntity): void {
    const name = player.character.name;
    const before = this.lastInventory?.player === player ? this.lastInventory.before : undefined;
    if (!before) {
      this.problems.push(`${name} dealt at ${shelf.def.id} without a change of inventory`);
      return;
    }
    const moved = [...changes(before, player.character.inventory)].filter(([id]) => id !== COINS_ITEM_ID);
    const [itemId, units] = moved[0] ?? [];
    if (moved.length !== 1 || itemId === undefined || units === undefined) {
      this.problems.push(`${name}'s deal at ${shelf.def.id} moved ${JSON.stringify(moved)}`);
      return;
    }
    const price =
      units > 0
        ? shelf.def.items.find((offer) => offer.itemId === itemId)?.price
        : sellPrice(this.state.data.items.get(itemId)?.value ?? 0);
    if (price === undefined) {
      this.problems.push(`${name} was given ${units} ${itemId}, which ${shelf.def.id} does not sell`);
      return;
    }
    const deal = `${units > 0 ? "bought" : "sold"} ${itemId}`;
    this.deals.set(deal, (this.deals.get(deal) ?? 0) + 1);
    this.flow(itemId, units);
    this.flow(COINS_ITEM_ID, -units * price);
    // The shelf gives what is bought and takes back what is sold of what it sells, up to a full stack.
    const stock = this.shelves.get(shelf)!;
    const shelved = stock.get(itemId);
    if (shelved !== undefined) stock.set(itemId, Math.min(MAX_STACK, shelved - units));
    this.check(shelf, `after ${name} ${deal} x${Math.abs(units)}`);
  }

  /** Each item's stock moves one unit back towards the store's own. */
  private restocked(shelf: StoreShelf): void {
    const stock = this.shelves.get(shelf)!;
    for (const { itemId, stock: own } of shelf.def.items) {
      const now = stock.get(itemId) ?? 0;
      stock.set(itemId, now + Math.sign(own - now));
    }
    this.check(shelf, "after a restock");
  }

  /** Notes a shelf that holds otherwise than the rules say, and follows it from there. */
  private check(shelf: StoreShelf, when: string): void {
    const expected = this.shelves.get(shelf)!;
    const actual = new Map(shelf.stock);
    const show = (stock: Map<string, number>) => JSON.stringify(Object.fromEntries(stock));
    if (show(actual) !== show(expected))
      this.problems.push(`${shelf.def.id} ${when} holds ${show(actual)}, not ${show(expected)}`);
    this.shelves.set(shelf, actual);
  }

  private flow(itemId: string, units: number): void {
    this.flows.set(itemId, (this.flows.get(itemId) ?? 0) + units);
  }
}

/** How many of each item an inventory gained (or lost, negative) from `before` to `after`. */
function changes(before: readonly InventoryEntry[], after: readonly InventoryEntry[]): Map<string, number> {
  const moved = new Map<string, number>();
  for (const { itemId, quantity } of after) moved.set(itemId, (moved.get(itemId) ?? 0) + quantity);
  for (const { itemId, quantity } of before) moved.set(itemId, (moved.get(itemId) ?? 0) - quantity);
  for (const [itemId, units] of moved) if (units === 0) moved.delete(itemId);
  return moved;
}
