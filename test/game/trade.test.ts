import assert from "node:assert/strict";
import fc from "fast-check";
import type { InventoryEntry } from "../../src/game/character-state.js";
import {
  acceptTrade,
  addToOffer,
  cancelTrade,
  completeTrade,
  expireTrade,
  failTradeCommit,
  offersAsHeld,
  removeFromOffer,
  requestTrade,
  respondToTrade,
  TRADE_INACTIVITY_EXPIRY_MS,
  TRADE_REQUEST_EXPIRY_MS,
  type Trade,
  type TradeOffer,
  type TradeResult,
} from "../../src/game/trade.js";
import { applyTradeToInventories } from "../../src/game/trade-swap.js";
import { INVENTORY_SLOTS, MAX_STACK } from "../../src/game/types.js";
import { ITEMS, inventoryArbitrary, totals } from "./fixtures.js";

const ALICE = { id: "alice", name: "Alice" };
const BOB = { id: "bob", name: "Bob" };
const T0 = 1_000_000;

const ALICE_INVENTORY: InventoryEntry[] = [
  { slot: 0, itemId: "coins", quantity: 500 },
  { slot: 1, itemId: "iron_sword", quantity: 1 },
  { slot: 2, itemId: "quest_key", quantity: 1 },
];
const BOB_INVENTORY: InventoryEntry[] = [
  { slot: 3, itemId: "logs", quantity: 1 },
  { slot: 4, itemId: "logs", quantity: 1 },
];

/** Unwraps a successful transition, failing the test on a refusal. */
function succeeded(result: TradeResult) {
  if (!result.ok) assert.fail(`refused: ${result.reason}`);
  return result;
}

function refusal(result: TradeResult): string {
  assert.equal(result.ok, false);
  return result.ok ? "" : result.reason;
}

function pending(): Trade {
  return succeeded(requestTrade("t1", ALICE, BOB, T0)).trade;
}

function started(): Trade {
  return succeeded(respondToTrade(pending(), "bob", true, T0)).trade;
}

/** Alice offers 100 coins and the sword, Bob one log. */
function withOffers(): Trade {
  let trade = started();
  trade = succeeded(addToOffer(trade, "alice", 0, 100, ALICE_INVENTORY, ITEMS, T0)).trade;
  trade = succeeded(addToOffer(trade, "alice", 1, 1, ALICE_INVENTORY, ITEMS, T0)).trade;
  return succeeded(addToOffer(trade, "bob", 3, 1, BOB_INVENTORY, ITEMS, T0)).trade;
}

function confirming(): Trade {
  const trade = succeeded(acceptTrade(withOffers(), "alice", ITEMS, T0)).trade;
  return succeeded(acceptTrade(trade, "bob", ITEMS, T0)).trade;
}

function committing(): Trade {
  const trade = succeeded(acceptTrade(confirming(), "bob", ITEMS, T0)).trade;
  return succeeded(acceptTrade(trade, "alice", ITEMS, T0)).trade;
}

describe("trade requests", () => {
  it("tells the target about a request", () => {
    const { trade, events } = succeeded(requestTrade("t1", ALICE, BOB, T0));
    assert.equal(trade.stage, "pending");
    assert.deepEqual(events, [
      {
        to: "bob",
        event: "tradeIncoming",
        data: { tradeId: "t1", fromPlayerId: "alice", fromPlayerName: "Alice" },
      },
    ]);
  });

  it("refuses a trade with oneself", () => {
    assert.equal(refusal(requestTrade("t1", ALICE, { ...ALICE }, T0)), "self_trade");
  });

  it("starts the offer stage when the target accepts", () => {
    const { trade, events } = succeeded(respondToTrade(pending(), "bob", true, T0));
    assert.equal(trade.stage, "offer");
    assert.deepEqual(events, [
      { to: "alice", event: "tradeStarted", data: { tradeId: "t1", partnerId: "bob", partnerName: "Bob" } },
      { to: "bob", event: "tradeStarted", data: { tradeId: "t1", partnerId: "alice", partnerName: "Alice" } },
    ]);
  });

  it("cancels as declined when the target refuses", () => {
    const { trade, events } = succeeded(respondToTrade(pending(), "bob", false, T0));
    assert.equal(trade.stage, "cancelled");
    assert.deepEqual(
      events.map((e) => [e.to, e.event, e.data]),
      [
        ["alice", "tradeCancelled", { tradeId: "t1", reason: "declined" }],
        ["bob", "tradeCancelled", { tradeId: "t1", reason: "declined" }],
      ],
    );
  });

  it("lets only the target answer, and only while pending", () => {
    assert.equal(refusal(respondToTrade(pending(), "alice", true, T0)), "not_participant");
    assert.equal(refusal(respondToTrade(pending(), "carol", true, T0)), "not_participant");
    assert.equal(refusal(respondToTrade(started(), "bob", true, T0)), "wrong_stage");
  });
});

describe("offers", () => {
  it("shows each player their own offer and the partner's", () => {
    const { events } = succeeded(addToOffer(started(), "alice", 0, 100, ALICE_INVENTORY, ITEMS, T0));
    const coins = [{ inventorySlot: 0, itemId: "coins", quantity: 100 }];
    assert.deepEqual(events, [
      {
        to: "alice",
        event: "tradeUpdated",
        data: { tradeId: "t1", myOffer: coins, theirOffer: [], myAccepted: false, theirAccepted: false },
      },
      {
        to: "bob",
        event: "tradeUpdated",
        data: { tradeId: "t1", myOffer: [], theirOffer: coins, myAccepted: false, theirAccepted: false },
      },
    ]);
  });

  it("adds to the offer of a slot already offered, never beyond what the slot holds", () => {
    let trade = succeeded(addToOffer(started(), "alice", 0, 100, ALICE_INVENTORY, ITEMS, T0)).trade;
    trade = succeeded(addToOffer(trade, "alice", 0, 400, ALICE_INVENTORY, ITEMS, T0)).trade;
    assert.deepEqual(trade.sides[0].offer, [{ inventorySlot: 0, itemId: "coins", quantity: 500 }]);
    assert.equal(refusal(addToOffer(trade, "alice", 0, 1, ALICE_INVENTORY, ITEMS, T0)), "insufficient_items");
  });

  it("refuses adding to a slot's offer when the slot now holds a different item", () => {
    const trade = succeeded(addToOffer(started(), "alice", 0, 100, ALICE_INVENTORY, ITEMS, T0)).trade;
    // Slot 0 held Alice's 500 coins when she offered 100; it now holds 500 feathers instead.
    const swapped = [
      { slot: 0, itemId: "feathers", quantity: 500 },
      { slot: 1, itemId: "iron_sword", quantity: 1 },
    ];
    assert.equal(refusal(addToOffer(trade, "alice", 0, 1, swapped, ITEMS, T0)), "insufficient_items");
    assert.equal(refusal(addToOffer(trade, "alice", 0, 100, swapped, ITEMS, T0)), "insufficient_items");
  });

  it("refuses bad slots, bad quantities and untradeable items", () => {
    const trade = started();
    const add = (slot: number, quantity: number) =>
      refusal(addToOffer(trade, "alice", slot, quantity, ALICE_INVENTORY, ITEMS, T0));
    assert.equal(add(5, 1), "invalid_slot");
    assert.equal(add(INVENTORY_SLOTS, 1), "invalid_slot");
    assert.equal(add(-1, 1), "invalid_slot");
    assert.equal(add(0.5, 1), "invalid_slot");
    assert.equal(add(0, 0), "invalid_quantity");
    assert.equal(add(0, -3), "invalid_quantity");
    assert.equal(add(0, 1.5), "invalid_quantity");
    assert.equal(add(0, 501), "insufficient_items");
    assert.equal(add(2, 1), "untradeable");
  });

  it("refuses strangers and offers outside the offer stage", () => {
    assert.equal(
      refusal(addToOffer(started(), "carol", 0, 1, ALICE_INVENTORY, ITEMS, T0)),
      "not_participant",
    );
    assert.equal(refusal(addToOffer(pending(), "alice", 0, 1, ALICE_INVENTORY, ITEMS, T0)), "wrong_stage");
    assert.equal(refusal(addToOffer(confirming(), "alice", 0, 1, ALICE_INVENTORY, ITEMS, T0)), "wrong_stage");
    assert.equal(refusal(removeFromOffer(confirming(), "alice", 0, undefined, T0)), "wrong_stage");
  });

  it("removes part of a slot's offer, or all of it", () => {
    const trade = withOffers();
    const partly = succeeded(removeFromOffer(trade, "alice", 0, 30, T0)).trade;
    assert.deepEqual(partly.sides[0].offer[0], { inventorySlot: 0, itemId: "coins", quantity: 70 });
    const whole = succeeded(removeFromOffer(trade, "alice", 0, undefined, T0)).trade;
    assert.deepEqual(whole.sides[0].offer, [{ inventorySlot: 1, itemId: "iron_sword", quantity: 1 }]);
    const more = succeeded(removeFromOffer(trade, "alice", 0, 1_000, T0)).trade;
    assert.deepEqual(more.sides[0].offer, whole.sides[0].offer);
  });

  it("refuses removing a slot not offered or a bad quantity", () => {
    assert.equal(refusal(removeFromOffer(withOffers(), "alice", 3, undefined, T0)), "invalid_slot");
    assert.equal(refusal(removeFromOffer(withOffers(), "alice", 0, 0, T0)), "invalid_quantity");
    assert.equal(refusal(removeFromOffer(withOffers(), "carol", 0, 1, T0)), "not_participant");
  });

  it("clears both accepts whenever either offer changes", () => {
    let trade = succeeded(acceptTrade(withOffers(), "alice", ITEMS, T0)).trade;
    trade = succeeded(addToOffer(trade, "bob", 4, 1, BOB_INVENTORY, ITEMS, T0)).trade;
    assert.deepEqual([trade.sides[0].accepted, trade.sides[1].accepted], [false, false]);
    trade = succeeded(acceptTrade(trade, "bob", ITEMS, T0)).trade;
    trade = succeeded(removeFromOffer(trade, "alice", 0, 1, T0)).trade;
    assert.deepEqual([trade.sides[0].accepted, trade.sides[1].accepted], [false, false]);
  });
});

describe("accepting", () => {
  it("shows one side's accept to both", () => {
    const { trade, events } = succeeded(acceptTrade(withOffers(), "alice", ITEMS, T0));
    assert.equal(trade.stage, "offer");
    const flags = events.map(
      (e) => e.event === "tradeUpdated" && [e.to, e.data.myAccepted, e.data.theirAccepted],
    );
    assert.deepEqual(flags, [
      ["alice", true, false],
      ["bob", false, true],
    ]);
  });

  it("ignores a second accept from the same player", () => {
    const trade = succeeded(acceptTrade(withOffers(), "alice", ITEMS, T0)).trade;
    assert.deepEqual(succeeded(acceptTrade(trade, "alice", ITEMS, T0 + 1)), { ok: true, trade, events: [] });
  });

  it("moves to the confirmation screen with the offers' values when both accept", () => {
    const trade = succeeded(acceptTrade(withOffers(), "alice", ITEMS, T0)).trade;
    const { trade: confirm, events } = succeeded(acceptTrade(trade, "bob", ITEMS, T0));
    assert.equal(confirm.stage, "confirm");
    assert.deepEqual([confirm.sides[0].accepted, confirm.sides[1].accepted], [false, false]);
    const aliceOffer = [
      { inventorySlot: 0, itemId: "coins", quantity: 100 },
      { inventorySlot: 1, itemId: "iron_sword", quantity: 1 },
    ];
    const bobOffer = [{ inventorySlot: 3, itemId: "logs", quantity: 1 }];
    // coins 100 * 1 + sword 91 = 191; one log = 4
    assert.deepEqual(events, [
      {
        to: "alice",
        event: "tradeConfirmScreen",
        data: { tradeId: "t1", myOffer: aliceOffer, theirOffer: bobOffer, values: { mine: 191, theirs: 4 } },
      },
      {
        to: "bob",
        event: "tradeConfirmScreen",
        data: { tradeId: "t1", myOffer: bobOffer, theirOffer: aliceOffer, values: { mine: 4, theirs: 191 } },
      },
    ]);
  });

  it("is ready to commit when both accept on the confirmation screen", () => {
    const half = succeeded(acceptTrade(confirming(), "bob", ITEMS, T0));
    assert.equal(half.trade.stage, "confirm");
    const { trade, events } = succeeded(acceptTrade(half.trade, "alice", ITEMS, T0));
    assert.equal(trade.stage, "committing");
    assert.deepEqual(events, []);
  });

  it("refuses accepting before the trade starts or while it commits", () => {
    assert.equal(refusal(acceptTrade(pending(), "bob", ITEMS, T0)), "wrong_stage");
    assert.equal(refusal(acceptTrade(committing(), "bob", ITEMS, T0)), "wrong_stage");
    assert.equal(refusal(acceptTrade(started(), "carol", ITEMS, T0)), "not_participant");
  });
});

describe("offers the inventories no longer hold", () => {
  it("changes nothing while every offered slot holds what it offers", () => {
    assert.equal(offersAsHeld(confirming(), [ALICE_INVENTORY, BOB_INVENTORY], T0 + 1), undefined);
    assert.equal(offersAsHeld(committing(), [[], []], T0 + 1), undefined, "past its offers");
  });

  it("cuts an offer to what its slot still holds, drops one whose item is gone, back at the offer stage", () => {
    // Since the confirm screen, Alice spent 60 of her coins and her sword went; Bob kept his log.
    const aliceNow = [{ slot: 0, itemId: "coins", quantity: 40 }, ALICE_INVENTORY[2]!];
    const changed = offersAsHeld(confirming(), [aliceNow, BOB_INVENTORY], T0 + 5);
    assert.ok(changed, "the offers changed");
    const { trade, events } = changed;
    assert.equal(trade.stage, "offer");
    assert.equal(trade.lastActivityAt, T0 + 5);
    assert.deepEqual(trade.sides[0].offer, [{ inventorySlot: 0, itemId: "coins", quantity: 40 }]);
    assert.deepEqual(trade.sides[1].offer, [{ inventorySlot: 3, itemId: "logs", quantity: 1 }]);
    assert.ok(trade.sides.every((side) => !side.accepted));
    assert.deepEqual(
      events.map(({ to, event }) => `${event} to ${to}`),
      ["tradeUpdated to alice", "tradeUpdated to bob", "tradeError to alice", "tradeError to bob"],
    );
    const error = events.find((event) => event.event === "tradeError");
    assert.equal(error?.event === "tradeError" && error.data.reason, "offer_changed");
  });
});

describe("completing", () => {
  it("gives each player the other's offer", () => {
    const { trade, events } = succeeded(completeTrade(committing()));
    assert.equal(trade.stage, "completed");
    assert.deepEqual(events, [
      {
        to: "alice",
        event: "tradeCompleted",
        data: { tradeId: "t1", receivedItems: [{ itemId: "logs", quantity: 1 }] },
      },
      {
        to: "bob",
        event: "tradeCompleted",
        data: {
          tradeId: "t1",
          receivedItems: [
            { itemId: "coins", quantity: 100 },
            { itemId: "iron_sword", quantity: 1 },
          ],
        },
      },
    ]);
  });

  it("tells both players why and cancels the trade when the swap fails", () => {
    const { trade, events } = succeeded(failTradeCommit(committing(), "inventory_full"));
    assert.equal(trade.stage, "cancelled");
    assert.equal(trade.cancelReason, "commit_failed");
    assert.deepEqual(
      events.map((e) => [e.to, e.event]),
      [
        ["alice", "tradeError"],
        ["bob", "tradeError"],
        ["alice", "tradeCancelled"],
        ["bob", "tradeCancelled"],
      ],
    );
    assert.equal(events[0]?.event === "tradeError" && events[0].data.reason, "inventory_full");
  });

  it("only completes or fails a committing trade", () => {
    assert.equal(refusal(completeTrade(confirming())), "wrong_stage");
    assert.equal(refusal(failTradeCommit(withOffers(), "insufficient_items")), "wrong_stage");
  });
});

describe("cancelling", () => {
  for (const [stage, trade] of [
    ["pending", pending],
    ["offer", withOffers],
    ["confirm", confirming],
  ] as const) {
    for (const player of ["alice", "bob"]) {
      it(`lets ${player} cancel at the ${stage} stage, telling both`, () => {
        const result = succeeded(cancelTrade(trade(), player));
        assert.equal(result.trade.stage, "cancelled");
        assert.deepEqual(
          result.events.map((e) => [e.to, e.event, e.data]),
          [
            ["alice", "tradeCancelled", { tradeId: "t1", reason: "cancelled" }],
            ["bob", "tradeCancelled", { tradeId: "t1", reason: "cancelled" }],
          ],
        );
      });
    }
  }

  it("tells the partner that a player disconnected, and the player that it did", () => {
    const { events } = succeeded(cancelTrade(withOffers(), "bob", "partner_disconnected"));
    assert.deepEqual(events, [
      { to: "alice", event: "tradeCancelled", data: { tradeId: "t1", reason: "partner_disconnected" } },
      { to: "bob", event: "tradeCancelled", data: { tradeId: "t1", reason: "disconnected" } },
    ]);
  });

  it("tells only the partner when a player cancels because they are busy", () => {
    const { trade, events } = succeeded(cancelTrade(pending(), "alice", "partner_busy"));
    assert.equal(trade.stage, "cancelled");
    assert.equal(trade.cancelReason, "partner_busy");
    assert.deepEqual(events, [
      { to: "bob", event: "tradeCancelled", data: { tradeId: "t1", reason: "partner_busy" } },
    ]);
    const fromBob = succeeded(cancelTrade(pending(), "bob", "partner_busy"));
    assert.deepEqual(fromBob.events, [
      { to: "alice", event: "tradeCancelled", data: { tradeId: "t1", reason: "partner_busy" } },
    ]);
  });

  it("cannot cancel a committing or finished trade", () => {
    assert.equal(refusal(cancelTrade(committing(), "alice")), "wrong_stage");
    assert.equal(refusal(cancelTrade(succeeded(completeTrade(committing())).trade, "alice")), "wrong_stage");
    assert.equal(
      refusal(cancelTrade(succeeded(cancelTrade(started(), "bob")).trade, "alice")),
      "wrong_stage",
    );
    assert.equal(refusal(cancelTrade(started(), "carol")), "not_participant");
  });
});

describe("expiry", () => {
  it("expires an unanswered request after 30 seconds", () => {
    assert.deepEqual(expireTrade(pending(), T0 + TRADE_REQUEST_EXPIRY_MS - 1).events, []);
    const { trade, events } = expireTrade(pending(), T0 + TRADE_REQUEST_EXPIRY_MS);
    assert.equal(trade.cancelReason, "expired");
    assert.deepEqual(
      events.map((e) => [e.to, e.event]),
      [
        ["alice", "tradeCancelled"],
        ["bob", "tradeCancelled"],
      ],
    );
  });

  it("expires a started trade after 5 minutes without activity, counted from the last change", () => {
    const later = T0 + TRADE_INACTIVITY_EXPIRY_MS - 10;
    const touched = succeeded(removeFromOffer(withOffers(), "alice", 0, 1, later)).trade;
    assert.equal(expireTrade(touched, T0 + TRADE_INACTIVITY_EXPIRY_MS).trade.stage, "offer");
    assert.equal(expireTrade(touched, later + TRADE_INACTIVITY_EXPIRY_MS).trade.stage, "cancelled");
    assert.equal(expireTrade(confirming(), T0 + TRADE_INACTIVITY_EXPIRY_MS).trade.stage, "cancelled");
  });

  it("never expires a trade that is committing", () => {
    assert.equal(expireTrade(committing(), T0 + 10 * TRADE_INACTIVITY_EXPIRY_MS).trade.stage, "committing");
  });
});

describe("applyTradeToInventories", () => {
  const coinsOffer: TradeOffer[] = [{ inventorySlot: 0, itemId: "coins", quantity: 100 }];
  const logOffer: TradeOffer[] = [{ inventorySlot: 3, itemId: "logs", quantity: 1 }];

  it("moves the offered items and merges received stacks", () => {
    const bobWithCoins = [...BOB_INVENTORY, { slot: 9, itemId: "coins", quantity: 5 }];
    const result = applyTradeToInventories(ALICE_INVENTORY, bobWithCoins, coinsOffer, logOffer, ITEMS);
    assert.deepEqual(result, {
      ok: true,
      invA: [
        { slot: 0, itemId: "coins", quantity: 400 },
        { slot: 1, itemId: "iron_sword", quantity: 1 },
        { slot: 2, itemId: "quest_key", quantity: 1 },
        { slot: 3, itemId: "logs", quantity: 1 },
      ],
      invB: [
        { slot: 4, itemId: "logs", quantity: 1 },
        { slot: 9, itemId: "coins", quantity: 105 },
      ],
      receivedA: [{ itemId: "logs", quantity: 1 }],
      receivedB: [{ itemId: "coins", quantity: 100 }],
    });
  });

  it("counts the slots freed by the outgoing items", () => {
    const full = Array.from({ length: INVENTORY_SLOTS }, (_, slot) => ({
      slot,
      itemId: "logs",
      quantity: 1,
    }));
    const result = applyTradeToInventories(
      full,
      BOB_INVENTORY,
      [{ inventorySlot: 7, itemId: "logs", quantity: 1 }],
      logOffer,
      ITEMS,
    );
    assert.equal(result.ok, true);
  });

  it("refuses when an offered slot no longer holds the item", () => {
    const sold = [{ slot: 0, itemId: "coins", quantity: 99 }];
    assert.deepEqual(applyTradeToInventories(sold, BOB_INVENTORY, coinsOffer, [], ITEMS), {
      ok: false,
      reason: "insufficient_items",
    });
    const swapped = [{ slot: 0, itemId: "feathers", quantity: 500 }];
    assert.equal(applyTradeToInventories(swapped, BOB_INVENTORY, coinsOffer, [], ITEMS).ok, false);
  });

  it("refuses an offer of a quantity that is not a whole number of at least 1, moving nothing", () => {
    for (const quantity of [0, -5, 1.5]) {
      const aliceInventory = [{ slot: 0, itemId: "coins", quantity: 500 }];
      const bobInventory = [{ slot: 3, itemId: "logs", quantity: 1 }];
      const badOffer = [{ inventorySlot: 0, itemId: "coins", quantity }];
      assert.deepEqual(
        applyTradeToInventories(aliceInventory, bobInventory, badOffer, logOffer, ITEMS),
        { ok: false, reason: "insufficient_items" },
        `quantity ${quantity}`,
      );
      // The other direction too: the bad offer is Bob's.
      const badLogOffer = [{ inventorySlot: 3, itemId: "logs", quantity }];
      assert.deepEqual(
        applyTradeToInventories(aliceInventory, bobInventory, coinsOffer, badLogOffer, ITEMS),
        { ok: false, reason: "insufficient_items" },
        `quantity ${quantity}`,
      );
      assert.deepEqual(aliceInventory, [{ slot: 0, itemId: "coins", quantity: 500 }]);
      assert.deepEqual(bobInventory, [{ slot: 3, itemId: "logs", quantity: 1 }]);
    }
  });

  it("refuses when the receiver has no free slot", () => {
    const full = Array.from({ length: INVENTORY_SLOTS }, (_, slot) => ({
      slot,
      itemId: "logs",
      quantity: 1,
    }));
    assert.deepEqual(applyTradeToInventories(ALICE_INVENTORY, full, coinsOffer, [], ITEMS), {
      ok: false,
      reason: "inventory_full",
    });
  });

  it("refuses a stack that would pass the maximum instead of wrapping it", () => {
    const rich = [{ slot: 0, itemId: "coins", quantity: MAX_STACK - 50 }];
    assert.deepEqual(applyTradeToInventories(ALICE_INVENTORY, rich, coinsOffer, [], ITEMS), {
      ok: false,
      reason: "inventory_full",
    });
  });

  it("conserves every item's total and keeps inventories valid", () => {
    const offerOf = (inventory: InventoryEntry[]) =>
      fc
        .subarray(inventory)
        .chain((entries) =>
          fc.tuple(
            ...entries.map((entry) =>
              fc
                .integer({ min: 1, max: entry.quantity })
                .map(
                  (quantity): TradeOffer => ({ inventorySlot: entry.slot, itemId: entry.itemId, quantity }),
                ),
            ),
          ),
        );
    const scenario = fc
      .tuple(inventoryArbitrary(MAX_STACK), inventoryArbitrary(MAX_STACK))
      .chain(([invA, invB]) => fc.tuple(fc.constant(invA), fc.constant(invB), offerOf(invA), offerOf(invB)));
    fc.assert(
      fc.property(scenario, ([invA, invB, offerA, offerB]) => {
        const result = applyTradeToInventories(invA, invB, offerA, offerB, ITEMS);
        if (!result.ok) {
          assert.equal(result.reason, "inventory_full");
          return;
        }
        assert.deepEqual(totals(result.invA, result.invB), totals(invA, invB));
        assert.deepEqual(totals(result.receivedA), totals(offerB));
        for (const inventory of [result.invA, result.invB]) {
          assert.equal(new Set(inventory.map((entry) => entry.slot)).size, inventory.length);
          for (const { slot, quantity } of inventory) {
            assert.ok(slot >= 0 && slot < INVENTORY_SLOTS);
            assert.ok(quantity >= 1 && quantity <= MAX_STACK);
          }
        }
      }),
    );
  });
});
