// The interface's banking actions: bankDeposit, bankWithdraw. Both need the agent beside a booth or a banker.
import { z } from "zod";
import { countItem } from "../../game/inventory.js";
import { MAX_STACK } from "../../game/types.js";
import type { AgentContext } from "../knowledge.js";
import { besideBank, hasRoomFor, inventory, itemName } from "./lookups.js";
import { defineAction, OK, refuse } from "./types.js";

const NOT_AT_BANK = "the agent is not beside a bank booth or banker: navigateTo the bank first";
const quantity = z.int().min(1).max(MAX_STACK);

export const bankDeposit = defineAction({
  name: "bankDeposit",
  description:
    "Deposit into the bank: an item (itemId or slot, all of it unless a quantity is given), or everything with all: true. Must stand beside a bank booth or banker.",
  params: z
    .strictObject({
      itemId: z.string().min(1).max(64).optional(),
      slot: z.int().min(0).max(27).optional(),
      quantity: quantity.optional(),
      all: z.boolean().optional(),
    })
    .refine(
      ({ itemId, slot, all }) =>
        [itemId !== undefined, slot !== undefined, all === true].filter(Boolean).length === 1,
      {
        message: "give exactly one of: itemId, slot, or all: true",
      },
    ),
  run(runtime, { itemId, slot, quantity: wanted, all }) {
    const items = inventory(runtime.know);
    if (!besideBank(runtime)) return refuse(NOT_AT_BANK);
    if (all) {
      if (items.length === 0) return refuse("the inventory is empty: there is nothing to deposit");
      runtime.halt();
      let rounds = 0;
      runtime.begin({
        action: "bankDeposit",
        step({ know }) {
          const [entry] = inventory(know);
          if (!entry || ++rounds > 28 * 3) return "done";
          return {
            event: "bank:deposit",
            data: { inventorySlot: entry.slot, quantity: countItem(inventory(know), entry.itemId) },
          };
        },
      });
      return OK;
    }
    const entry = items.find((candidate) =>
      slot !== undefined ? candidate.slot === slot : candidate.itemId === itemId,
    );
    if (!entry)
      return refuse(
        slot !== undefined
          ? `inventory slot ${slot} is empty`
          : `the agent carries no ${itemName(runtime, itemId!)}`,
      );
    const held = countItem(items, entry.itemId);
    // It replaces what is under way (a deposit of everything, which would go on with what this leaves).
    runtime.halt();
    runtime.send({
      event: "bank:deposit",
      data: { inventorySlot: entry.slot, quantity: Math.min(wanted ?? held, held) },
    });
    return OK;
  },
  available: (context) => besideBank(context) && inventory(context.know).length > 0,
});

function banked({ know }: AgentContext, itemId: string): number {
  return know.sync?.bank.find((row) => row.itemId === itemId)?.quantity ?? 0;
}

export const bankWithdraw = defineAction({
  name: "bankWithdraw",
  description:
    "Withdraw an item from the bank (quantity 1 unless given). Must stand beside a bank booth or banker.",
  params: z.strictObject({ itemId: z.string().min(1).max(64), quantity: quantity.optional() }),
  run(runtime, { itemId, quantity: wanted = 1 }) {
    if (!besideBank(runtime)) return refuse(NOT_AT_BANK);
    const held = banked(runtime, itemId);
    if (held === 0) return refuse(`the bank holds no ${itemName(runtime, itemId)}`);
    if (!hasRoomFor(runtime, itemId)) return refuse("the inventory is full: deposit or drop something first");
    // It replaces what is under way: a deposit of everything would bank again what this takes out.
    runtime.halt();
    runtime.send({ event: "bank:withdraw", data: { itemId, quantity: Math.min(wanted, held) } });
    return OK;
  },
  available: (context) => besideBank(context) && (context.know.sync?.bank.length ?? 0) > 0,
});
