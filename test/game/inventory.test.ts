import assert from "node:assert/strict";
import type { InventoryEntry } from "../../src/game/character-state.js";
import {
  addItem,
  countItem,
  freeSlots,
  moveSlot,
  removeFromSlot,
  removeItem,
  removeStartingAt,
} from "../../src/game/inventory.js";
import { INVENTORY_SLOTS, MAX_STACK } from "../../src/game/types.js";

const coins = { id: "coins", stackable: true };
const logs = { id: "logs", stackable: false };

describe("inventory", () => {
  it("takes the slot named first, then the same item's other slots, lowest first", () => {
    const held = [0, 3, 5].map((slot) => ({ slot, itemId: "logs", quantity: 1 }));
    const slotsLeft = (quantity: number) =>
      removeStartingAt(held, 3, quantity).inventory.map((entry) => entry.slot);
    assert.deepEqual(slotsLeft(1), [0, 5]);
    assert.deepEqual(slotsLeft(2), [5]);
    assert.deepEqual(slotsLeft(9), []);
    assert.deepEqual(removeStartingAt(held, 4, 1), { inventory: held, removed: 0 }, "an empty slot");
    const stack = removeStartingAt([{ slot: 2, itemId: "coins", quantity: 10 }], 2, 4);
    assert.deepEqual(stack, { inventory: [{ slot: 2, itemId: "coins", quantity: 6 }], removed: 4 });
  });

  it("stacks a stackable item in one slot", () => {
    let inventory = addItem([], coins, 10).inventory;
    inventory = addItem(inventory, coins, 15).inventory;
    assert.deepEqual(inventory, [{ slot: 0, itemId: "coins", quantity: 25 }]);
  });

  it("clamps a stack at the maximum and reports what did not fit, never wrapping", () => {
    const full = [{ slot: 3, itemId: "coins", quantity: MAX_STACK - 5 }];
    const result = addItem(full, coins, 100);
    assert.deepEqual(result.inventory, [{ slot: 3, itemId: "coins", quantity: MAX_STACK }]);
    assert.equal(result.added, 5);
    assert.equal(result.remaining, 95);
    assert.equal(addItem(result.inventory, coins, 1).remaining, 1, "a full stack takes nothing");
  });

  it("clamps a new stack at the maximum when more than a stack is added to an empty inventory", () => {
    assert.equal(MAX_STACK, 2_147_483_647);
    // 2_147_483_647 + 7 = 2_147_483_654 asked for: one full stack is added, 7 are given back
    const result = addItem([], coins, 2_147_483_654);
    assert.deepEqual(result, {
      inventory: [{ slot: 0, itemId: "coins", quantity: 2_147_483_647 }],
      added: 2_147_483_647,
      remaining: 7,
    });
  });

  it("puts each unstackable item in its own slot, lowest free slot first", () => {
    const result = addItem([{ slot: 0, itemId: "coins", quantity: 1 }], logs, 2);
    assert.deepEqual(
      result.inventory.map((entry) => entry.slot),
      [0, 1, 2],
    );
    assert.equal(countItem(result.inventory, "logs"), 2);
  });

  it("gives back what does not fit in 28 slots", () => {
    const result = addItem([], logs, 30);
    assert.equal(result.added, INVENTORY_SLOTS);
    assert.equal(result.remaining, 2);
    assert.equal(freeSlots(result.inventory), 0);
    assert.equal(addItem(result.inventory, coins, 5).remaining, 5, "no slot for a new stack");
  });

  it("removes from a slot, emptying it when nothing is left", () => {
    const inventory = [{ slot: 4, itemId: "coins", quantity: 10 }];
    assert.deepEqual(removeFromSlot(inventory, 4, 3).inventory, [{ slot: 4, itemId: "coins", quantity: 7 }]);
    const all = removeFromSlot(inventory, 4, 50);
    assert.deepEqual(all, { inventory: [], removed: 10 });
  });

  it("removes an item across slots", () => {
    const inventory = addItem([], logs, 3).inventory;
    const result = removeItem(inventory, "logs", 2);
    assert.equal(result.removed, 2);
    assert.deepEqual(result.inventory, [{ slot: 2, itemId: "logs", quantity: 1 }]);
  });

  it("takes a quantity that is not a number as none, and Infinity as all, so nothing is ever lost", () => {
    const held: InventoryEntry[] = [
      { slot: 0, itemId: "coins", quantity: 40 },
      { slot: 3, itemId: "logs", quantity: 1 },
      { slot: 4, itemId: "logs", quantity: 1 },
    ];
    assert.deepEqual(removeFromSlot(held, 0, Number.NaN), { inventory: held, removed: 0 });
    assert.deepEqual(removeItem(held, "logs", Number.NaN), { inventory: held, removed: 0 });
    assert.deepEqual(addItem(held, coins, Number.NaN), { inventory: held, added: 0, remaining: 0 });
    assert.deepEqual(removeItem(held, "logs", Number.POSITIVE_INFINITY), {
      inventory: [held[0]],
      removed: 2,
    });
    assert.deepEqual(removeFromSlot(held, 0, Number.POSITIVE_INFINITY).removed, 40);
  });

  it("moves an item to another slot, swapping with what was there", () => {
    const inventory: InventoryEntry[] = [
      { slot: 0, itemId: "coins", quantity: 5 },
      { slot: 1, itemId: "logs", quantity: 1 },
    ];
    assert.deepEqual(moveSlot(inventory, 0, 1), [
      { slot: 0, itemId: "logs", quantity: 1 },
      { slot: 1, itemId: "coins", quantity: 5 },
    ]);
    assert.deepEqual(moveSlot(inventory, 0, 9), [
      { slot: 1, itemId: "logs", quantity: 1 },
      { slot: 9, itemId: "coins", quantity: 5 },
    ]);
  });

  it("never mutates its input", () => {
    const inventory = [{ slot: 0, itemId: "coins", quantity: 5 }];
    addItem(inventory, coins, 5);
    removeFromSlot(inventory, 0, 5);
    assert.deepEqual(inventory, [{ slot: 0, itemId: "coins", quantity: 5 }]);
  });
});
