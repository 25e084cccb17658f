import assert from "node:assert/strict";
import fc from "fast-check";
import { MAX_STACK } from "../../src/game/types.js";
import type { World } from "../../src/game/world.js";
import type { Intent } from "../../src/game/world-types.js";
import { BOOTH, character, makeWorld } from "./world-fixture.js";

const ITEM_IDS = ["coins", "logs", "bones", "bronze_axe"] as const;

/** Every unit of every item the player can reach: inventory, bank and the ground. */
function totals(world: World): Map<string, number> {
  const sum = new Map<string, number>();
  const count = (itemId: string, quantity: number) => {
    assert.ok(Number.isInteger(quantity) && quantity >= 1 && quantity <= MAX_STACK, `${itemId} x${quantity}`);
    sum.set(itemId, (sum.get(itemId) ?? 0) + quantity);
  };
  const state = world.character("p1");
  for (const entry of state.inventory) count(entry.itemId, entry.quantity);
  for (const row of state.bank) count(row.itemId, row.quantity);
  for (const entity of world.entities()) if (entity.kind === "item") count(entity.type, entity.quantity!);
  return sum;
}

// Mostly the occupied slots, sometimes any (invalid ones included).
const slot = fc.oneof(fc.integer({ min: 0, max: 2 }), fc.integer({ min: -1, max: 28 }));
const quantity = fc.oneof(fc.integer({ min: -2, max: 30 }), fc.constant(MAX_STACK));
type Step =
  | { op: "drop"; slot: number }
  | { op: "pickup"; pick: number }
  | { op: "deposit"; slot: number; quantity: number }
  | { op: "withdraw"; item: number; quantity: number }
  | { op: "move" };

const steps = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant("drop" as const), slot }),
    fc.record({ op: fc.constant("pickup" as const), pick: fc.nat() }),
    fc.record({ op: fc.constant("deposit" as const), slot, quantity }),
    fc.record({ op: fc.constant("withdraw" as const), item: fc.oneof(fc.constant(0), fc.nat()), quantity }),
    fc.record({ op: fc.constant("move" as const) }),
  ),
  { minLength: 10, maxLength: 60, size: "max" },
);

function intentFor(world: World, step: Step, tick: number): Intent {
  switch (step.op) {
    case "drop":
      return { type: "action", action: "drop", inventorySlot: step.slot };
    case "pickup": {
      const items = world.entities().filter((entity) => entity.kind === "item");
      return {
        type: "action",
        action: "pickup",
        targetId: items[step.pick % Math.max(1, items.length)]?.id ?? "item:0",
      };
    }
    case "deposit":
      return { type: "bankDeposit", inventorySlot: step.slot, quantity: step.quantity };
    case "withdraw":
      return {
        type: "bankWithdraw",
        itemId: ITEM_IDS[step.item % ITEM_IDS.length]!,
        quantity: step.quantity,
      };
    case "move":
      // Shuffle between two tiles beside the booth, so later pickups have to walk.
      return { type: "move", x: BOOTH.x - 1, z: BOOTH.z + (tick % 2) };
  }
}

describe("item conservation", () => {
  it("no sequence of drops, pickups, deposits and withdrawals creates, loses or negates items", () => {
    fc.assert(
      fc.property(steps, (sequence) => {
        const world = makeWorld();
        world.join(
          character("p1", {
            position: { x: BOOTH.x - 1, z: BOOTH.z },
            inventory: [
              { slot: 0, itemId: "coins", quantity: MAX_STACK - 5 },
              { slot: 1, itemId: "logs", quantity: 1 },
              { slot: 2, itemId: "logs", quantity: 1 },
              { slot: 5, itemId: "bronze_axe", quantity: 1 },
            ],
            bank: [
              { itemId: "coins", quantity: 50 },
              { itemId: "bones", quantity: 40 },
            ],
          }),
        );
        const before = totals(world);
        sequence.forEach((step, index) => {
          world.submit("p1", intentFor(world, step, index));
          world.step();
          assert.deepEqual(totals(world), before);
        });
      }),
      { numRuns: 200 },
    );
  });
});
