import { z } from "zod";
import { EQUIP_SLOTS, INVENTORY_SLOTS, MAX_STACK } from "../game/types.js";
import { ACTIONS, type Intent } from "../game/world-types.js";

// The client events of CONTRACT.md, validated the same way for SDK clients and /ws clients.
// docs/protocol.md's JSON Schemas are generated from these.

const slot = z
  .int()
  .min(0)
  .max(INVENTORY_SLOTS - 1);
const quantity = z.int().min(1).max(MAX_STACK);
const tileCoordinate = z.int().min(-1_000_000).max(1_000_000);
const id = z.string().min(1).max(64);

export const worldMessages = {
  "player:move": z.object({ x: tileCoordinate, z: tileCoordinate, run: z.boolean().optional() }),
  "player:action": z.object({
    action: z.enum(ACTIONS),
    targetId: id.optional(),
    inventorySlot: slot.optional(),
  }),
  "player:chat": z.object({ message: z.string().min(1).max(200) }),
  "inventory:use": z.object({ inventorySlot: slot, targetSlot: slot.optional(), targetId: id.optional() }),
  "inventory:unequip": z.object({ slot: z.enum(EQUIP_SLOTS) }),
  "bank:deposit": z.object({ inventorySlot: slot, quantity }),
  "bank:withdraw": z.object({ itemId: id, quantity }),
  tradeRequest: z.object({ targetPlayerId: id }),
  tradeRequestRespond: z.object({ tradeId: id, accept: z.boolean() }),
} as const;

export const tradeMessages = {
  tradeAddItem: z.object({ tradeId: id, inventorySlot: slot, quantity }),
  tradeRemoveItem: z.object({ tradeId: id, inventorySlot: slot, quantity: quantity.optional() }),
  tradeAccept: z.object({ tradeId: id }),
  tradeCancel: z.object({ tradeId: id }),
} as const;

/** Answers one client message (the /ws channel echoes the request's `id` on it). */
export type Reply = (event: string, data: unknown) => void;

export type WorldMessageName = keyof typeof worldMessages;
export type TradeMessageName = keyof typeof tradeMessages;
export type WorldMessage<K extends WorldMessageName> = z.infer<(typeof worldMessages)[K]>;

export function isWorldMessage(name: string): name is WorldMessageName {
  return Object.hasOwn(worldMessages, name);
}

export function isTradeMessage(name: string): name is TradeMessageName {
  return Object.hasOwn(tradeMessages, name);
}

/** The game intent of a validated world event (trade events are not intents). */
export function toIntent(name: WorldMessageName, data: unknown): Intent | undefined {
  switch (name) {
    case "player:move": {
      const { x, z, run } = data as WorldMessage<"player:move">;
      return { type: "move", x, z, run };
    }
    case "player:action":
      return { type: "action", ...(data as WorldMessage<"player:action">) };
    case "player:chat":
      return { type: "chat", message: (data as WorldMessage<"player:chat">).message };
    case "inventory:use":
      return { type: "use", ...(data as WorldMessage<"inventory:use">) };
    case "inventory:unequip":
      return { type: "unequip", slot: (data as WorldMessage<"inventory:unequip">).slot };
    case "bank:deposit":
      return { type: "bankDeposit", ...(data as WorldMessage<"bank:deposit">) };
    case "bank:withdraw":
      return { type: "bankWithdraw", ...(data as WorldMessage<"bank:withdraw">) };
    default:
      return undefined;
  }
}

/** Zod's issues as CONTRACT's error details: which field, and why. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "data"}: ${issue.message}`).join("; ");
}
