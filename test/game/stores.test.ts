// Stores: buying within stock, coins and room; selling for part of the value; restocking.
import assert from "node:assert/strict";
import type { InventoryEntry } from "../../src/game/character-state.js";
import { type GameError, isGameError } from "../../src/game/errors.js";
import { seededRandom } from "../../src/game/random.js";
import {
  buyFrom,
  closeDeal,
  type Deal,
  openShelf,
  RESTOCK_TICKS,
  restock,
  sellPrice,
  sellTo,
} from "../../src/game/stores.js";
import { type ItemDef, MAX_STACK, type StoreDef } from "../../src/game/types.js";
import { World } from "../../src/game/world.js";
import type { OutboundEvent } from "../../src/game/world-types.js";
import { character, gameData, SPAWN } from "./world-fixture.js";

const item = (id: string, value: number, stackable = false, tradeable = true): ItemDef => ({
  id,
  name: id,
  type: "misc",
  value,
  stackable,
  tradeable,
});
const HAMMER = item("hammer", 1);
const AXE = item("bronze_axe", 16);
const FEATHER = item("feather", 2, true);
const TOKEN = item("guild_token", 100, false, false);
const COINS = item("coins", 1, true);

const STORE: StoreDef = {
  id: "general_store",
  name: "General Store",
  npcId: "keeper",
  items: [
    { itemId: "hammer", stock: 5, price: 1 },
    { itemId: "bronze_axe", stock: 2, price: 16 },
    { itemId: "feather", stock: 500, price: 2 },
  ],
};

function holding(...held: [string, number][]): InventoryEntry[] {
  return held.map(([itemId, quantity], slot) => ({ slot, itemId, quantity }));
}

/** `count` slots of rocks after the given entries: an inventory with little room. */
function crowded(room: number, ...held: [string, number][]): InventoryEntry[] {
  const rocks = Array.from({ length: 28 - room - held.length }, () => ["rock", 1] as [string, number]);
  return holding(...held, ...rocks);
}

function deal(result: Deal | GameError): Deal {
  assert.ok(!isGameError(result), isGameError(result) ? result.message : "");
  return result;
}

function coinsIn(inventory: readonly InventoryEntry[]): number {
  return inventory
    .filter((entry) => entry.itemId === "coins")
    .reduce((sum, entry) => sum + entry.quantity, 0);
}

describe("Store rules", () => {
  it("sells as many as the stock, the coins and the inventory's room allow, for the price each", () => {
    const shelf = openShelf(STORE);
    const axes = deal(buyFrom(shelf, holding(["coins", 100]), AXE, 5));
    assert.deepEqual([axes.units, axes.coins, coinsIn(axes.inventory)], [2, 32, 68], "the stock of 2");
    assert.equal(axes.short, "bronze_axe: you bought 2 of the 5 you asked for, as the store has no more.");
    const poor = deal(buyFrom(shelf, holding(["coins", 20]), AXE, 2));
    assert.equal(poor.units, 1, "20 coins pay for one axe");
    assert.equal(
      poor.short,
      "bronze_axe: you bought 1 of the 2 you asked for, as your coins pay for no more.",
    );
    const cramped = deal(buyFrom(shelf, crowded(1, ["coins", 100]), AXE, 2));
    assert.equal(cramped.units, 1, "one free slot");
    assert.equal(
      cramped.short,
      "bronze_axe: you bought 1 of the 2 you asked for, as your inventory has no room for more.",
    );
    assert.equal(deal(buyFrom(shelf, holding(["coins", 100]), AXE, 2)).short, undefined, "all bought");
    const feathers = deal(buyFrom(shelf, crowded(0, ["coins", 100], ["feather", 3]), FEATHER, 20));
    assert.deepEqual(feathers.inventory.slice(0, 2), [
      { slot: 0, itemId: "coins", quantity: 60 },
      { slot: 1, itemId: "feather", quantity: 23 },
    ]);
    assert.deepEqual(feathers.shelved, { itemId: "feather", stock: 480 });
  });

  it("counts the slot the coins leave when they are all spent", () => {
    const shelf = openShelf(STORE);
    const spent = deal(buyFrom(shelf, crowded(0, ["coins", 16]), AXE, 1));
    assert.deepEqual(spent.inventory[0], { slot: 0, itemId: "bronze_axe", quantity: 1 });
    assert.equal(coinsIn(spent.inventory), 0);
  });

  it("works out what fits at once, not by trying one unit fewer at a time", () => {
    // A shelf of a million feathers (players' sales shelve what they sell), a rich buyer, no room: tried
    // down one at a time, a refused purchase took a million inventory copies, seconds of the tick.
    const shelf = openShelf({ ...STORE, items: [{ itemId: "feather", stock: 1_000_000, price: 1 }] });
    const started = performance.now();
    const refused = buyFrom(shelf, crowded(0, ["coins", 2_000_000]), FEATHER, 1_000_000);
    assert.equal((refused as GameError).code, "inventory_full");
    const beside = deal(buyFrom(shelf, crowded(0, ["coins", 2_000_000], ["feather", 5]), FEATHER, 1_000_000));
    assert.equal(beside.units, 1_000_000);
    const allSpent = deal(buyFrom(shelf, crowded(0, ["coins", 70]), FEATHER, 1_000_000));
    assert.deepEqual(
      [allSpent.units, allSpent.inventory[0]],
      [70, { slot: 0, itemId: "feather", quantity: 70 }],
    );
    assert.ok(performance.now() - started < 100, `${performance.now() - started} ms`);
  });

  it("takes nothing from the shelf until the deal is closed", () => {
    const shelf = openShelf(STORE);
    const bought = deal(buyFrom(shelf, holding(["coins", 10]), HAMMER, 3));
    assert.equal(shelf.stock.get("hammer"), 5);
    closeDeal(shelf, bought);
    assert.equal(shelf.stock.get("hammer"), 2);
  });

  it("refuses what it does not sell, what it has run out of, what the coins do not pay and what does not fit", () => {
    const shelf = openShelf(STORE);
    const code = (result: Deal | GameError) => (isGameError(result) ? result.code : "sold");
    assert.equal(code(buyFrom(shelf, holding(["coins", 100]), TOKEN, 1)), "not_found");
    assert.equal(code(buyFrom(shelf, holding(["coins", 15]), AXE, 1)), "not_enough_coins");
    assert.equal(code(buyFrom(shelf, holding(), HAMMER, 1)), "not_enough_coins");
    assert.equal(code(buyFrom(shelf, crowded(0, ["coins", 100]), AXE, 1)), "inventory_full");
    closeDeal(shelf, deal(buyFrom(shelf, holding(["coins", 100]), AXE, 2)));
    assert.deepEqual(buyFrom(shelf, holding(["coins", 100]), AXE, 1), {
      code: "out_of_stock",
      message: "General Store has no bronze_axe left.",
    });
  });

  it("buys tradeable items for 40 % of their value, rounded down, shelving those it sells", () => {
    assert.deepEqual([sellPrice(AXE), sellPrice(item("x", 2)), sellPrice(item("y", 3))], [6, 0, 1]);
    const shelf = openShelf(STORE);
    const axes = deal(sellTo(shelf, holding(["bronze_axe", 1], ["coins", 5], ["bronze_axe", 1]), 0, 5, AXE));
    assert.deepEqual(axes.inventory, [{ slot: 1, itemId: "coins", quantity: 17 }], "both axes, 6 coins each");
    assert.deepEqual(axes.shelved, { itemId: "bronze_axe", stock: 4 });
    const logs = item("logs", 4);
    const sold = deal(sellTo(shelf, holding(["logs", 1], ["logs", 1]), 1, 1, logs));
    assert.deepEqual([sold.units, coinsIn(sold.inventory), sold.shelved], [1, 1, undefined]);
    assert.ok(
      sold.inventory.some((entry) => entry.slot === 0 && entry.itemId === "logs"),
      "the slot named is sold first",
    );
    const feathers = deal(sellTo(shelf, holding(["feather", 100]), 0, 40, item("feather", 5, true)));
    assert.deepEqual(feathers.inventory, [
      { slot: 0, itemId: "feather", quantity: 60 },
      { slot: 1, itemId: "coins", quantity: 80 },
    ]);
    // Only whole units are sold and paid for: what is not one is no sale.
    const gem = item("gem", 1000, true);
    const whole = deal(sellTo(shelf, holding(["gem", 5]), 0, 1.5, gem));
    assert.deepEqual(whole.inventory, [
      { slot: 0, itemId: "gem", quantity: 4 },
      { slot: 1, itemId: "coins", quantity: 400 },
    ]);
    for (const none of [0.5, Number.NaN])
      assert.equal((sellTo(shelf, holding(["gem", 5]), 0, none, gem) as GameError).code, "bad_request");
  });

  it("will not buy coins, untradeable or worthless items, nor leave coins with nowhere to go", () => {
    const shelf = openShelf(STORE);
    const code = (inventory: InventoryEntry[], sold: ItemDef) =>
      (sellTo(shelf, inventory, 0, 1, sold) as GameError).code;
    assert.equal(code(holding(["coins", 10]), COINS), "invalid_target");
    assert.equal(code(holding(["guild_token", 1]), TOKEN), "invalid_target");
    assert.equal(code(holding(["feather", 10]), FEATHER), "invalid_target", "2 coins' value pays 0");
    assert.equal(code(holding(), AXE), "invalid_slot");
    // Selling one of a stack frees no slot, and there is none for the coins.
    const stackOfSwords = item("sword_pile", 50, true);
    assert.equal(code(crowded(0, ["sword_pile", 5]), stackOfSwords), "inventory_full");
  });

  it("sells only as many as the coins' stack can take, and none when it is full", () => {
    const shelf = openShelf(STORE);
    const swords = item("sword_pile", 50, true);
    // 20 coins each: 7 coins short of the stack's limit leave room for none, 47 short for two.
    const nearlyFull = (short: number) => holding(["sword_pile", 5], ["coins", MAX_STACK - short]);
    assert.equal((sellTo(shelf, nearlyFull(7), 0, 5, swords) as GameError).code, "inventory_full");
    const two = deal(sellTo(shelf, nearlyFull(47), 0, 5, swords));
    assert.equal(two.units, 2);
    assert.deepEqual(two.inventory, [
      { slot: 0, itemId: "sword_pile", quantity: 3 },
      { slot: 1, itemId: "coins", quantity: MAX_STACK - 7 },
    ]);
  });

  it("restocks one unit at a time towards the store's own stock, from below and from above", () => {
    const shelf = openShelf(STORE);
    shelf.stock.set("hammer", 3);
    shelf.stock.set("bronze_axe", 4);
    restock(shelf);
    assert.deepEqual([shelf.stock.get("hammer"), shelf.stock.get("bronze_axe")], [4, 3]);
    restock(shelf);
    restock(shelf);
    assert.deepEqual([shelf.stock.get("hammer"), shelf.stock.get("bronze_axe")], [5, 2]);
  });
});

const KEEPER_AT = { x: 11, z: 10 };

/** The fixture world with a shopkeeper beside the spawn point, keeping STORE, and its items. */
function storeWorld(): World {
  const data = gameData();
  const keeper = {
    ...data.npcs.get("banker")!,
    id: "keeper",
    name: "Shopkeeper",
    role: "shopkeeper" as const,
  };
  return new World({
    data: {
      ...data,
      items: new Map([...data.items, ...[HAMMER, AXE, FEATHER].map((def) => [def.id, def] as const)]),
      npcs: new Map([...data.npcs, ["keeper", keeper]]),
      areas: data.areas.map((area) => ({
        ...area,
        npcSpawns: [...area.npcSpawns, { npcId: "keeper", ...KEEPER_AT }],
      })),
      stores: new Map([[STORE.id, STORE]]),
    },
    random: seededRandom(3),
  });
}

function keeperId(world: World): string {
  return world.entities().find((entity) => entity.type === "keeper")!.id;
}

function stockEvents(world: World, playerId: string, ticks = 1) {
  return Array.from({ length: ticks }, () => world.step()).flatMap((report) =>
    report.events.flatMap((event) => (event.event === "store:stock" && event.to === playerId ? [event] : [])),
  );
}

describe("Stores in the world", () => {
  it("shows the stock to a player at the counter, and sells from it to one player after another", () => {
    const world = storeWorld();
    world.join(character("p1", { position: { ...SPAWN }, inventory: holding(["coins", 30]) }));
    world.join(character("p2", { position: { x: 12, z: 11 }, inventory: holding(["coins", 30]) }));
    const keeper = keeperId(world);
    world.submit("p1", { type: "storeOpen", targetId: keeper }, 7);
    const [shown] = stockEvents(world, "p1");
    assert.equal(shown?.ref, 7, "the stock answers the store:open");
    assert.deepEqual(shown?.data, {
      targetId: keeper,
      storeId: "general_store",
      name: "General Store",
      items: STORE.items.map(({ itemId, stock, price }) => ({ itemId, stock, price })),
    });
    assert.equal(
      world.submit("p1", { type: "storeBuy", targetId: keeper, itemId: "bronze_axe", quantity: 1 }),
      undefined,
    );
    const [after] = stockEvents(world, "p1");
    assert.equal(after?.ref, undefined, "a purchase is answered by its player:sync");
    assert.equal(after?.data.items[1]?.stock, 1);
    assert.deepEqual(world.playerSync("p1").coins, 14);
    world.submit("p2", { type: "storeBuy", targetId: keeper, itemId: "bronze_axe", quantity: 5 }, 9);
    const told = world
      .step()
      .events.filter((event) => event.event === "chat:message" && event.to === "p2")
      .map((event) => ({
        message: (event.data as { message: string }).message,
        ref: "ref" in event ? event.ref : undefined,
      }));
    // The notice answers the store:buy, as its player:sync does: a client matching replies learns why.
    assert.deepEqual(told, [
      { message: "bronze_axe: you bought 1 of the 5 you asked for, as the store has no more.", ref: 9 },
    ]);
    assert.equal(
      world.inventory("p2").filter((entry) => entry.itemId === "bronze_axe").length,
      1,
      "one was left",
    );
    assert.equal(
      world.submit("p1", { type: "storeBuy", targetId: keeper, itemId: "bronze_axe", quantity: 1 })?.code,
      "out_of_stock",
    );
  });

  it("sells the last one to the player who entered the world first, whichever asked first in the tick", () => {
    const world = storeWorld();
    world.join(character("p1", { position: { ...SPAWN }, inventory: holding(["coins", 60]) }));
    world.join(character("p2", { position: { x: 12, z: 11 }, inventory: holding(["coins", 60]) }));
    const keeper = keeperId(world);
    const buy = (playerId: string) =>
      world.submit(playerId, { type: "storeBuy", targetId: keeper, itemId: "bronze_axe", quantity: 1 });
    assert.equal(buy("p1"), undefined);
    world.step();
    // One axe left: the later player's message comes in first.
    assert.equal(buy("p2"), undefined);
    assert.equal(buy("p1"), undefined);
    world.step();
    const axes = (playerId: string) =>
      world.inventory(playerId).filter((entry) => entry.itemId === "bronze_axe").length;
    assert.deepEqual([axes("p1"), axes("p2")], [2, 0]);
  });

  it("serves only a player next to the shopkeeper, and refuses a store:sell of another item than the slot held", () => {
    const world = storeWorld();
    world.join(character("p1", { position: { x: 14, z: 14 }, inventory: holding(["coins", 30]) }));
    const keeper = keeperId(world);
    assert.deepEqual(world.submit("p1", { type: "storeOpen", targetId: keeper }), {
      code: "too_far",
      message: "You need to stand next to Shopkeeper.",
    });
    assert.equal(world.submit("p1", { type: "storeOpen", targetId: "npc:999" })?.code, "not_found");
    world.submit("p1", { type: "teleport", x: 12, z: 10 });
    world.step();
    // A trade that completes between the message and the tick puts another item in the slot.
    world.replaceInventory("p1", holding(["coins", 30], ["bronze_axe", 1]));
    world.submit("p1", { type: "storeSell", targetId: keeper, inventorySlot: 1, quantity: 1 });
    world.replaceInventory("p1", holding(["coins", 30], ["hammer", 1]));
    const refused = world.step().events.find((event) => event.event === "error");
    assert.equal(refused?.data.code, "invalid_slot");
    assert.deepEqual(world.inventory("p1"), holding(["coins", 30], ["hammer", 1]), "the hammer is not sold");
    world.setBusy("p1", "trade");
    assert.equal(
      world.submit("p1", { type: "storeSell", targetId: keeper, inventorySlot: 1, quantity: 1 })?.code,
      "busy",
    );
    assert.equal(
      world.submit("p1", { type: "storeOpen", targetId: keeper }),
      undefined,
      "looking changes nothing",
    );
    world.setBusy("p1", undefined);

    const banker = world.entities().find((entity) => entity.type === "banker")!;
    world.submit("p1", { type: "teleport", x: 30, z: 31 });
    world.step();
    assert.equal(world.submit("p1", { type: "storeOpen", targetId: banker.id })?.code, "invalid_target");
  });

  it("shows a player at the counter every change of the stock, its own deals, others' and restocking", () => {
    const world = storeWorld();
    world.join(character("p1", { position: { ...SPAWN }, inventory: holding(["coins", 30]) }));
    world.join(character("p2", { position: { x: 12, z: 11 }, inventory: holding(["coins", 30]) }));
    const keeper = keeperId(world);
    world.submit("p1", { type: "storeOpen", targetId: keeper });
    world.step();
    const hammers = (event: OutboundEvent | undefined) =>
      event?.event === "store:stock"
        ? event.data.items.find((offer) => offer.itemId === "hammer")?.stock
        : undefined;

    world.submit("p2", { type: "storeBuy", targetId: keeper, itemId: "hammer", quantity: 2 });
    const report = world.step();
    const shown = (playerId: string) =>
      report.events.filter((event) => event.event === "store:stock" && event.to === playerId);
    assert.deepEqual([shown("p1").length, shown("p2").length], [1, 1], "once each, the buyer too");
    assert.equal(hammers(shown("p1")[0]), 3);

    // Walked away from the counter: nothing more for p1, as for a player who never looked.
    world.submit("p1", { type: "teleport", x: 20, z: 20 });
    world.step();
    world.submit("p2", { type: "storeBuy", targetId: keeper, itemId: "hammer", quantity: 1 });
    assert.deepEqual(stockEvents(world, "p1"), []);
    while ((world.tick + 1) % RESTOCK_TICKS !== 0) world.step();
    const restocked = stockEvents(world, "p2");
    assert.equal(hammers(restocked[0]), 3, "a restock is shown to who stands at the counter");
    assert.deepEqual(stockEvents(world, "p1", RESTOCK_TICKS), []);
  });

  it("restocks what was bought one unit a minute", () => {
    const world = storeWorld();
    world.join(character("p1", { position: { ...SPAWN }, inventory: holding(["coins", 30]) }));
    const keeper = keeperId(world);
    world.submit("p1", { type: "storeBuy", targetId: keeper, itemId: "hammer", quantity: 3 });
    world.step();
    const stockOfHammers = () => {
      world.submit("p1", { type: "storeOpen", targetId: keeper });
      return stockEvents(world, "p1")[0]!.data.items[0]!.stock;
    };
    assert.equal(stockOfHammers(), 2);
    while (world.tick % RESTOCK_TICKS !== RESTOCK_TICKS - 2) world.step();
    assert.equal(stockOfHammers(), 2, "not before the minute is up");
    world.step();
    assert.equal(stockOfHammers(), 3);
    for (let tick = 0; tick < RESTOCK_TICKS; tick++) world.step();
    assert.equal(stockOfHammers(), 4);
  });
});
