import assert from "node:assert/strict";
import { deposit, withdraw } from "../../src/game/bank.js";
import { addItem } from "../../src/game/inventory.js";
import { MAX_STACK } from "../../src/game/types.js";
import { BOOTH, SPAWN, worldWith } from "./world-fixture.js";

const coins = { id: "coins", stackable: true };
const logs = { id: "logs", stackable: false };

describe("bank", () => {
  it("stacks unstackable items in one bank row, taking them from every slot", () => {
    const inventory = addItem([], logs, 3).inventory;
    const result = deposit(inventory, [], 1, 3, logs);
    assert.ok(!("code" in result));
    assert.deepEqual(result.bank, [{ itemId: "logs", quantity: 3 }]);
    assert.deepEqual(result.inventory, []);
  });

  it("deposits the slot named first: a copy of the item offered in a trade from another slot stays", () => {
    const inventory = addItem([], logs, 3).inventory;
    const result = deposit(inventory, [], 2, 1, logs);
    assert.ok(!("code" in result));
    assert.deepEqual(
      result.inventory.map((entry) => entry.slot),
      [0, 1],
    );
  });

  it("deposits part of a stack", () => {
    const result = deposit([{ slot: 0, itemId: "coins", quantity: 10 }], [], 0, 4, coins);
    assert.ok(!("code" in result));
    assert.deepEqual(result.inventory, [{ slot: 0, itemId: "coins", quantity: 6 }]);
    assert.deepEqual(result.bank, [{ itemId: "coins", quantity: 4 }]);
  });

  it("clamps a bank row at the maximum and keeps the rest in the inventory", () => {
    const result = deposit(
      [{ slot: 0, itemId: "coins", quantity: 10 }],
      [{ itemId: "coins", quantity: MAX_STACK - 3 }],
      0,
      10,
      coins,
    );
    assert.ok(!("code" in result));
    assert.deepEqual(result.bank, [{ itemId: "coins", quantity: MAX_STACK }]);
    assert.deepEqual(result.inventory, [{ slot: 0, itemId: "coins", quantity: 7 }]);
    const again = deposit(result.inventory, result.bank, 0, 1, coins);
    assert.equal("code" in again && again.code, "bank_full");
  });

  it("withdraws as many unstackable items as there are free slots", () => {
    const inventory = addItem([], logs, 26).inventory;
    const result = withdraw(inventory, [{ itemId: "logs", quantity: 5 }], logs, 5);
    assert.ok(!("code" in result));
    assert.equal(result.moved, 2);
    assert.deepEqual(result.bank, [{ itemId: "logs", quantity: 3 }]);
  });

  it("refuses to withdraw what the bank does not hold, or into a full inventory", () => {
    const missing = withdraw([], [], coins, 1);
    assert.equal("code" in missing && missing.code, "not_found");
    const full = addItem([], logs, 28).inventory;
    const noRoom = withdraw(full, [{ itemId: "coins", quantity: 1 }], coins, 1);
    assert.equal("code" in noRoom && noRoom.code, "inventory_full");
  });

  describe("in the world", () => {
    it("is refused away from a booth and a banker", () => {
      const world = worldWith({ x: SPAWN.x - 3, z: SPAWN.z });
      assert.equal(
        world.submit("p1", { type: "bankDeposit", inventorySlot: 6, quantity: 5 })?.code,
        "too_far",
      );
    });

    it("deposits next to a booth and reports the bank change for the room to commit", () => {
      const world = worldWith({ x: BOOTH.x - 1, z: BOOTH.z + 1 });
      const coinsSlot = world.inventory("p1").find((entry) => entry.itemId === "coins")!.slot;
      assert.equal(
        world.submit("p1", { type: "bankDeposit", inventorySlot: coinsSlot, quantity: 20 }),
        undefined,
      );
      const report = world.step();
      assert.deepEqual(report.bankChanged, ["p1"]);
      assert.deepEqual(world.character("p1").bank, [{ itemId: "coins", quantity: 20 }]);
      const sync = report.events.find((event) => event.event === "player:sync");
      assert.equal(sync?.event === "player:sync" && sync.data.coins, 5);
    });

    it("opens next to a banker NPC", () => {
      const world = worldWith({ x: 31, z: 31 });
      assert.equal(world.submit("p1", { type: "bankDeposit", inventorySlot: 0, quantity: 1 }), undefined);
      world.step();
      assert.deepEqual(world.character("p1").bank, [{ itemId: "bronze_axe", quantity: 1 }]);
      assert.equal(
        world.submit("p1", { type: "bankWithdraw", itemId: "bronze_axe", quantity: 1 }),
        undefined,
      );
      world.step();
      assert.deepEqual(world.character("p1").bank, []);
      assert.equal(world.inventory("p1").filter((entry) => entry.itemId === "bronze_axe").length, 1);
    });
  });
});
