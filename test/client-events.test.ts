import assert from "node:assert/strict";
import type { WorldEvent } from "../src/protocol/messages.js";
import { readWorldMessage, toIntent } from "../src/protocol/messages.js";

/** The intent a client event becomes once validated, as the rooms submit it. */
function intentOf(type: string, data: unknown) {
  const read = readWorldMessage(type, data);
  assert.ok(!("error" in read), `${type} is valid`);
  return toIntent(read as WorldEvent);
}

describe("client events: the item a client saw in a slot", () => {
  it("carries the itemId of a deposit, a sale, a slot action and a use to the intent, which the world checks the slot against", () => {
    assert.deepEqual(intentOf("bank:deposit", { inventorySlot: 3, quantity: 2, itemId: "logs" }), {
      type: "bankDeposit",
      inventorySlot: 3,
      quantity: 2,
      itemId: "logs",
    });
    assert.deepEqual(
      intentOf("store:sell", { targetId: "npc:1", inventorySlot: 3, quantity: 2, itemId: "bread" }),
      { type: "storeSell", targetId: "npc:1", inventorySlot: 3, quantity: 2, itemId: "bread" },
    );
    assert.deepEqual(intentOf("player:action", { action: "drop", inventorySlot: 3, itemId: "logs" }), {
      type: "action",
      action: "drop",
      targetId: undefined,
      inventorySlot: 3,
      style: undefined,
      itemId: "logs",
    });
    assert.deepEqual(intentOf("inventory:use", { inventorySlot: 3, itemId: "shrimps" }), {
      type: "use",
      inventorySlot: 3,
      itemId: "shrimps",
      targetSlot: undefined,
      targetId: undefined,
      productId: undefined,
    });
  });

  it("leaves it out when the client names none, and refuses one that is no item id", () => {
    assert.equal(intentOf("bank:deposit", { inventorySlot: 3, quantity: 2 })?.type, "bankDeposit");
    const read = readWorldMessage("bank:deposit", { inventorySlot: 3, quantity: 2, itemId: "" });
    assert.ok("error" in read && read.error.code === "bad_request");
  });
});
