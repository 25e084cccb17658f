import { z } from "zod";
import { MAX_CHAT_LENGTH } from "../game/chat.js";
import { COMBAT_STYLES } from "../game/combat.js";
import { EQUIP_SLOTS, INVENTORY_SLOTS, MAX_STACK } from "../game/types.js";
import { ACTIONS, type ActionName, type Intent } from "../game/world-types.js";

// The client events of the protocol (docs/protocol.md), validated the same way for SDK clients and /ws clients.
// docs/protocol.md's JSON Schemas are generated from these.

const slot = z
  .int()
  .min(0)
  .max(INVENTORY_SLOTS - 1);
const quantity = z.int().min(1).max(MAX_STACK);
const tileCoordinate = z.int().min(-1_000_000).max(1_000_000);
const id = z.string().min(1).max(64);
// The trade rules judge an offered slot's and quantity's values themselves: a slot that holds nothing
// or a quantity that is not a whole number of at least 1 is the trade's own refusal (tradeError
// invalid_slot or invalid_quantity, as the protocol lists them); only the wrong type is a malformed message.
const offeredSlot = z
  .number()
  .describe(`an inventory slot, 0 to ${INVENTORY_SLOTS - 1}; any other number is tradeError invalid_slot`);
const offeredQuantity = z
  .number()
  .describe("a whole number of at least 1; any other number is tradeError invalid_quantity");
// The protocol's player:action: what each action acts on.
const TARGETED_ACTIONS: readonly ActionName[] = ["attack", "chop", "fish", "mine", "pickup"];
const SLOT_ACTIONS: readonly ActionName[] = ["light_fire", "cook", "drop"];
const listed = (actions: readonly string[]) => `${actions.slice(0, -1).join(", ")} and ${actions.at(-1)}`;
// The item a client saw in the slot it names: one that holds another by then is refused, not acted on.
const seenItem = id
  .optional()
  .describe(
    "the item the client sees in the (used) inventory slot; if the slot holds another by then, refused with invalid_slot",
  );
// Both rooms take it: a request has no trade room until it is accepted, so the world cancels it.
const tradeCancel = z.object({ tradeId: id });

export const worldMessages = {
  "player:move": z.object({ x: tileCoordinate, z: tileCoordinate, run: z.boolean().optional() }),
  "player:action": z
    .object({
      action: z.enum(ACTIONS),
      targetId: id.optional().describe(`required by ${listed(TARGETED_ACTIONS)}`),
      inventorySlot: slot.optional().describe(`required by ${listed(SLOT_ACTIONS)}`),
      itemId: seenItem,
      style: z.enum(COMBAT_STYLES).optional().describe("required by combat_style"),
    })
    .superRefine(({ action, targetId, inventorySlot, style }, context) => {
      const missing = (field: string) =>
        context.addIssue({ code: "custom", path: [field], message: `${action} needs a ${field}` });
      if (TARGETED_ACTIONS.includes(action) && targetId === undefined) missing("targetId");
      if (SLOT_ACTIONS.includes(action) && inventorySlot === undefined) missing("inventorySlot");
      if (action === "combat_style" && style === undefined) missing("style");
    }),
  // Its length is the chat rule's (src/game/chat.ts), counted once trimmed: counted here, before the
  // trim, 200 letters with a space after them would be refused.
  "player:chat": z.object({
    message: z
      .string()
      .min(1)
      .describe(
        `1 to ${MAX_CHAT_LENGTH} characters once trimmed, as people see them (an emoji, a flag or an accented letter is one); no control or text-direction characters`,
      ),
  }),
  "inventory:use": z.object({
    inventorySlot: slot,
    itemId: seenItem,
    targetSlot: slot.optional(),
    targetId: id.optional(),
    productId: id
      .optional()
      .describe(
        "at a furnace or an anvil, the item to make; by default the first the player can make from the used item",
      ),
  }),
  "inventory:unequip": z.object({ slot: z.enum(EQUIP_SLOTS) }),
  "bank:deposit": z.object({ inventorySlot: slot, quantity, itemId: seenItem }),
  "bank:withdraw": z.object({ itemId: id, quantity }),
  "prayer:toggle": z.object({ prayerId: id, active: z.boolean() }),
  "store:open": z.object({ targetId: id }),
  "store:buy": z.object({ targetId: id, itemId: id, quantity }),
  "store:sell": z.object({ targetId: id, inventorySlot: slot, quantity, itemId: seenItem }),
  // /ws only (an SDK client leaves and joins with the `world` option): answered `player:hop`, then the
  // new world's player:sync on the same connection.
  "player:hop": z.object({
    world: z.int().min(1).max(100).describe("the numbered world to move to (1..WORLDS)"),
  }),
  tradeRequest: z.object({ targetPlayerId: id }),
  tradeRequestRespond: z.object({ tradeId: id, accept: z.boolean() }),
  tradeCancel,
} as const;

export const tradeMessages = {
  tradeAddItem: z.object({ tradeId: id, inventorySlot: offeredSlot, quantity: offeredQuantity }),
  tradeRemoveItem: z.object({
    tradeId: id,
    inventorySlot: offeredSlot,
    quantity: offeredQuantity.optional(),
  }),
  tradeAccept: z.object({ tradeId: id }),
  tradeCancel,
} as const;

/** How an SDK client is sent its view: see `Interest.open`. */
const VIEW_UPDATES = ["state", "messages"] as const;
export type ViewUpdates = (typeof VIEW_UPDATES)[number];

/** The options a client joins the room `world` with. */
export const worldJoinOptions = z.object({
  /** The account's character to play (by default the account's own, created on first sight). */
  characterId: z.string().max(64).optional(),
  updates: z.enum(VIEW_UPDATES).optional(),
  /** The numbered world to play in (1..WORLDS); by default the least full one that is not full. */
  world: z.number().int().min(1).max(100).optional(),
});
export type WorldJoinOptions = z.infer<typeof worldJoinOptions>;

/** Answers one client message (the /ws channel echoes the request's `id` on it). */
export type Reply = (event: string, data: unknown) => void;

export type WorldMessageName = keyof typeof worldMessages;
export type TradeMessageName = keyof typeof tradeMessages;
export type WorldMessage<K extends WorldMessageName> = z.infer<(typeof worldMessages)[K]>;
/** A validated world event, its name telling its data apart. */
export type WorldEvent = {
  [K in WorldMessageName]: { type: K; data: WorldMessage<K> };
}[WorldMessageName];
/** A validated trade event, its name telling its data apart. */
export type TradeMessage = {
  [K in TradeMessageName]: { type: K; data: z.infer<(typeof tradeMessages)[K]> };
}[TradeMessageName];

/** An `error` event's data: a stable code and a message for people. */
export interface Refusal {
  code: string;
  message: string;
}

/** The `error` answering a message that cannot be read, naming its event. */
export interface MessageError extends Refusal {
  code: "unknown_event" | "bad_request";
  event: string;
}

/**
 * Largest message a client may send, a /ws frame or an SDK room message; larger ones (up to 64 kB, which
 * both read) are answered with `frame_too_large` and dropped, the connection kept.
 */
export const MAX_FRAME_BYTES = 4096;
/** Largest frame either transport reads at all: a larger one closes the connection (1009). */
export const MAX_READ_BYTES = 64 * 1024;
export const TOO_LARGE = `Frames are at most ${MAX_FRAME_BYTES} bytes.`;

/**
 * An SDK message's event and data, from what Colyseus hands a room's wildcard handler. A message whose
 * type is "*" itself reaches that handler as if it had been registered for it: its data where the type
 * goes, and Colyseus's send context (never message data: it holds functions) where the data goes. An
 * empty type comes as undefined, to be answered as the "" it was; a numeric type is read as its digits;
 * anything else names no event.
 */
export function sdkMessage(type: unknown, message: unknown): { event: string; data: unknown } {
  if (isSendContext(message)) return { event: "*", data: type };
  const event = typeof type === "string" ? type : typeof type === "number" ? String(type) : "";
  return { event, data: message };
}

function isSendContext(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { resolve?: unknown }).resolve === "function"
  );
}

export function isWorldMessage(name: string): name is WorldMessageName {
  return Object.hasOwn(worldMessages, name);
}

export function isTradeMessage(name: string): name is TradeMessageName {
  return Object.hasOwn(tradeMessages, name);
}

/** What the metrics count a message under whose event the protocol does not define: a client adds no label. */
export const OTHER_EVENT = "other";

/** A message's event as the metrics count it: a name the protocol defines, or OTHER_EVENT (bounded labels). */
export function eventLabel(name: string): string {
  return isWorldMessage(name) || isTradeMessage(name) ? name : OTHER_EVENT;
}

/** An event of `schemas` with its data validated (`Read` names each event's type), or the error answering it. */
function readEvent<Read>(
  schemas: Readonly<Record<string, z.ZodType>>,
  type: string,
  data: unknown,
): Read | { error: MessageError } {
  const schema = Object.hasOwn(schemas, type) ? schemas[type] : undefined;
  if (!schema)
    return { error: { code: "unknown_event", message: `There is no event named "${type}".`, event: type } };
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    return { error: { code: "bad_request", message: describeIssues(parsed.error), event: type } };
  return { type, data: parsed.data } as Read;
}

/** A world event with its data validated, or the error answering it. */
export function readWorldMessage(type: string, data: unknown): WorldEvent | { error: MessageError } {
  return readEvent<WorldEvent>(worldMessages, type, data);
}

/** A trade event with its data validated, or the error answering it. */
export function readTradeMessage(type: string, data: unknown): TradeMessage | { error: MessageError } {
  return readEvent<TradeMessage>(tradeMessages, type, data);
}

/**
 * The game intent of a validated world event (trade events are not intents). Each is an object literal
 * with all its fields, not a copy of the event's data: a literal's shape lives as long as the code that
 * makes it, where a copy's dies with each tick's intents at the room's full collections, and with it the
 * optimized code of the world's intent functions, compiled again in the next ticks.
 */
export function toIntent(event: WorldEvent): Intent | undefined {
  switch (event.type) {
    case "player:move": {
      const { x, z, run } = event.data;
      return { type: "move", x, z, run };
    }
    case "player:action": {
      const { action, targetId, inventorySlot, style, itemId } = event.data;
      return { type: "action", action, targetId, inventorySlot, style, itemId };
    }
    case "player:chat":
      return { type: "chat", message: event.data.message };
    case "inventory:use": {
      const { inventorySlot, itemId, targetSlot, targetId, productId } = event.data;
      return { type: "use", inventorySlot, itemId, targetSlot, targetId, productId };
    }
    case "inventory:unequip":
      return { type: "unequip", slot: event.data.slot };
    case "bank:deposit": {
      const { inventorySlot, quantity, itemId } = event.data;
      return { type: "bankDeposit", inventorySlot, quantity, itemId };
    }
    case "bank:withdraw": {
      const { itemId, quantity } = event.data;
      return { type: "bankWithdraw", itemId, quantity };
    }
    case "prayer:toggle": {
      const { prayerId, active } = event.data;
      return { type: "pray", prayerId, active };
    }
    case "store:open":
      return { type: "storeOpen", targetId: event.data.targetId };
    case "store:buy": {
      const { targetId, itemId, quantity } = event.data;
      return { type: "storeBuy", targetId, itemId, quantity };
    }
    case "store:sell": {
      const { targetId, inventorySlot, quantity, itemId } = event.data;
      return { type: "storeSell", targetId, inventorySlot, quantity, itemId };
    }
    default:
      return undefined;
  }
}

/** Zod's issues as the protocol's error details: which field, and why. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "data"}: ${issue.message}`).join("; ");
}
