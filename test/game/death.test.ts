import assert from "node:assert/strict";
import fc from "fast-check";
import type { Equipment, InventoryEntry } from "../../src/game/character-state.js";
import { deathNotice, ITEMS_KEPT_ON_DEATH, splitOnDeath } from "../../src/game/death.js";
import { EQUIP_SLOTS } from "../../src/game/types.js";
import { ITEMS, inventoryArbitrary, totals } from "./fixtures.js";

function wornItems(equipment: Equipment) {
  return Object.values(equipment).map((itemId) => ({ itemId, quantity: 1 }));
}

describe("splitOnDeath", () => {
  it("keeps the three most valuable items where they were in a safe zone", () => {
    const inventory: InventoryEntry[] = [
      { slot: 0, itemId: "coins", quantity: 100 },
      { slot: 1, itemId: "logs", quantity: 1 },
      { slot: 2, itemId: "shrimp", quantity: 1 },
    ];
    const equipment = { weapon: "iron_sword", shield: "wooden_shield", body: "leather_body" };
    assert.deepEqual(splitOnDeath(inventory, equipment, ITEMS, 3, true), {
      kept: { inventory: [], equipment },
      dropped: [
        { itemId: "coins", quantity: 100 },
        { itemId: "logs", quantity: 1 },
        { itemId: "shrimp", quantity: 1 },
      ],
    });
  });

  it("keeps three items by default in a safe zone", () => {
    assert.equal(ITEMS_KEPT_ON_DEATH, 3);
    const inventory: InventoryEntry[] = [0, 1, 2, 3, 4].map((slot) => ({
      slot,
      itemId: "logs",
      quantity: 1,
    }));
    // Five equal logs: the three lowest slots are kept, the other two drop.
    assert.deepEqual(splitOnDeath(inventory, {}, ITEMS, undefined, true), {
      kept: {
        inventory: [
          { slot: 0, itemId: "logs", quantity: 1 },
          { slot: 1, itemId: "logs", quantity: 1 },
          { slot: 2, itemId: "logs", quantity: 1 },
        ],
        equipment: {},
      },
      dropped: [
        { itemId: "logs", quantity: 1 },
        { itemId: "logs", quantity: 1 },
      ],
    });
  });

  it("counts a stack as single units", () => {
    const inventory: InventoryEntry[] = [
      { slot: 4, itemId: "feathers", quantity: 50 },
      { slot: 7, itemId: "logs", quantity: 1 },
    ];
    assert.deepEqual(splitOnDeath(inventory, {}, ITEMS, 3, true), {
      kept: {
        inventory: [
          { slot: 4, itemId: "feathers", quantity: 2 },
          { slot: 7, itemId: "logs", quantity: 1 },
        ],
        equipment: {},
      },
      dropped: [{ itemId: "feathers", quantity: 48 }],
    });
  });

  it("breaks ties by worn items first, then the lowest slots", () => {
    const inventory: InventoryEntry[] = [5, 3, 9, 1].map((slot) => ({
      slot,
      itemId: "raw_shrimp",
      quantity: 1,
    }));
    const { kept, dropped } = splitOnDeath(inventory, { weapon: "bronze_axe" }, ITEMS, 3, true);
    // bronze_axe (16) beats raw shrimp (5); then slots 1 and 3
    assert.deepEqual(kept.equipment, { weapon: "bronze_axe" });
    assert.deepEqual(
      kept.inventory.map((entry) => entry.slot),
      [1, 3],
    );
    assert.deepEqual(dropped, [
      { itemId: "raw_shrimp", quantity: 1 },
      { itemId: "raw_shrimp", quantity: 1 },
    ]);
  });

  it("drops everything outside a safe zone", () => {
    const inventory: InventoryEntry[] = [{ slot: 0, itemId: "coins", quantity: 10 }];
    assert.deepEqual(splitOnDeath(inventory, { weapon: "iron_sword" }, ITEMS, 3, false), {
      kept: { inventory: [], equipment: {} },
      dropped: [
        { itemId: "iron_sword", quantity: 1 },
        { itemId: "coins", quantity: 10 },
      ],
    });
  });

  it("conserves every item and keeps only the most valuable units", () => {
    const equipmentArbitrary = fc
      .subarray([...EQUIP_SLOTS])
      .chain((slots) =>
        fc.tuple(
          ...slots.map((slot) => fc.constantFrom(...ITEMS.keys()).map((itemId) => [slot, itemId] as const)),
        ),
      )
      .map((pairs): Equipment => Object.fromEntries(pairs));
    fc.assert(
      fc.property(
        inventoryArbitrary(),
        equipmentArbitrary,
        fc.integer({ min: 0, max: 5 }),
        fc.boolean(),
        (inventory, equipment, keepCount, safeZone) => {
          const { kept, dropped } = splitOnDeath(inventory, equipment, ITEMS, keepCount, safeZone);
          const keptUnits = [...kept.inventory, ...wornItems(kept.equipment)];
          assert.deepEqual(totals(keptUnits, dropped), totals(inventory, wornItems(equipment)));

          const keptCount = keptUnits.reduce((sum, entry) => sum + entry.quantity, 0);
          const owned = totals(inventory, wornItems(equipment));
          const ownedCount = [...owned.values()].reduce((sum, quantity) => sum + quantity, 0);
          assert.equal(keptCount, safeZone ? Math.min(keepCount, ownedCount) : 0);

          const worth = (itemId: string) => ITEMS.get(itemId)!.value;
          const lowestKept = Math.min(...keptUnits.map((entry) => worth(entry.itemId)));
          const highestDropped = Math.max(...dropped.map((entry) => worth(entry.itemId)));
          if (keptUnits.length > 0) assert.ok(lowestKept >= highestDropped);
        },
      ),
    );
  });
});

describe("deathNotice", () => {
  it("tells a player who lost nothing so, and one who did where it lies and for how long", () => {
    assert.equal(
      deathNotice(0, { x: 5, z: 6 }, "Lumbridge"),
      "Oh dear, you are dead! You kept everything you carried.",
    );
    assert.equal(
      deathNotice(4, { x: 141, z: 21 }, "Blackfen Marsh"),
      "Oh dear, you are dead! What you lost lies where you fell, at (141, 21) in Blackfen Marsh: only you see it for a minute, everyone after that, and it is gone after 3 minutes.",
    );
  });
});
