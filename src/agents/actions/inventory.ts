// The interface's inventory actions: equipItem, useItem, dropItem, pickupItem.
import { z } from "zod";
import type { InventoryEntry } from "../../game/character-state.js";
import { unmetRequirement } from "../../game/equipment.js";
import { chebyshev } from "../../game/tile.js";
import { INVENTORY_SLOTS } from "../../game/types.js";
import { TINDERBOX_ITEM_ID } from "../../game/world-actions.js";
import type { WorldEntity } from "../../game/world-types.js";
import type { AgentContext } from "../knowledge.js";
import { hasRoomFor, here, inventory, itemName, levels, nearestOf, seen } from "./lookups.js";
import { fireProblem } from "./skills.js";
import { type ActionResult, defineAction, OK, refuse } from "./types.js";
import { legsTask, planLegs } from "./walking.js";

/** The interface's safety cap: one dropItem drops at most this many inventory entries. */
export const MAX_DROPS_PER_CALL = 50;
/** Within this many tiles an item is picked up where the agent stands; beyond, it walks there first. */
export const PICKUP_RANGE = 1;

const slot = z
  .int()
  .min(0)
  .max(INVENTORY_SLOTS - 1);
const itemId = z.string().min(1).max(64);

/** An inventory entry named by its slot or its item id (exactly one of them). */
const oneEntry = z
  .strictObject({ itemId: itemId.optional(), slot: slot.optional() })
  .refine(({ itemId: id, slot: at }) => (id === undefined) !== (at === undefined), {
    message: "name the item by exactly one of itemId or slot",
  });

/** The entry named, or why there is none. */
function entryNamed(
  context: AgentContext,
  named: { itemId?: string; slot?: number },
): InventoryEntry | string {
  const items = inventory(context.know);
  if (named.slot !== undefined)
    return items.find((entry) => entry.slot === named.slot) ?? `inventory slot ${named.slot} is empty`;
  return (
    items.find((entry) => entry.itemId === named.itemId) ??
    `the agent carries no ${itemName(context, named.itemId!)}`
  );
}

/** Why the agent cannot wield or wear the item, if anything stops it. */
function wearProblem(context: AgentContext, itemId: string): string | undefined {
  const item = context.world.data.items.get(itemId);
  if (!item?.equipSlot) return `${itemName(context, itemId)} cannot be wielded or worn`;
  const skill = unmetRequirement(item, levels(context.know));
  if (skill)
    return `${skill} level ${item.requirements![skill]} is needed to use ${item.name} (the agent has ${levels(context.know)[skill]})`;
  return undefined;
}

/** Why using the item alone would do nothing: it is neither eaten, buried nor worn (or cannot be yet). */
function useAloneProblem(context: AgentContext, itemId: string): string | undefined {
  const item = context.world.data.items.get(itemId);
  if (item?.heals !== undefined || item?.buryXp !== undefined) return undefined;
  if (item?.equipSlot) return wearProblem(context, itemId);
  return `${itemName(context, itemId)} has no use alone: use it on an item (onItemId) or on something in view (targetId)`;
}

/** Why using one item on the other would do nothing: only a tinderbox on logs lights a fire. */
function useOnItemProblem(context: AgentContext, itemId: string, onItemId: string): string | undefined {
  const logs = itemId === TINDERBOX_ITEM_ID ? onItemId : onItemId === TINDERBOX_ITEM_ID ? itemId : undefined;
  if (logs === undefined || !context.world.data.firemaking.has(logs))
    return `nothing happens when ${itemName(context, itemId)} is used on ${itemName(context, onItemId)}`;
  return fireProblem(context, logs);
}

export const equipItem = defineAction({
  name: "equipItem",
  description: "Wield or wear an item from the inventory (named by itemId or slot).",
  params: oneEntry,
  run(runtime, named) {
    const entry = entryNamed(runtime, named);
    if (typeof entry === "string") return refuse(entry);
    const problem = wearProblem(runtime, entry.itemId);
    if (problem) return refuse(problem);
    runtime.send({ event: "inventory:use", data: { inventorySlot: entry.slot } });
    return OK;
  },
  available: ({ know, world }) =>
    inventory(know).some((entry) => world.data.items.get(entry.itemId)?.equipSlot),
});

export const useItem = defineAction({
  name: "useItem",
  description:
    "Use an inventory item (by itemId or slot): alone it is eaten, buried or worn; on another item (onItemId, e.g. a tinderbox on logs) or on something in view (targetId, e.g. raw food on a fire, ore on a furnace).",
  params: z
    .strictObject({
      itemId: itemId.optional(),
      slot: slot.optional(),
      onItemId: itemId.optional(),
      targetId: z.string().min(1).max(64).optional(),
    })
    .refine(({ itemId: id, slot: at }) => (id === undefined) !== (at === undefined), {
      message: "name the item by exactly one of itemId or slot",
    })
    .refine(({ onItemId, targetId }) => onItemId === undefined || targetId === undefined, {
      message: "use the item on one thing: onItemId or targetId",
    }),
  run(runtime, { onItemId, targetId, ...named }) {
    const entry = entryNamed(runtime, named);
    if (typeof entry === "string") return refuse(entry);
    const data: Record<string, unknown> = { inventorySlot: entry.slot };
    if (onItemId !== undefined) {
      const other = inventory(runtime.know).find(
        (candidate) => candidate.itemId === onItemId && candidate.slot !== entry.slot,
      );
      if (!other) return refuse(`the agent carries no ${itemName(runtime, onItemId)} to use it on`);
      const problem = useOnItemProblem(runtime, entry.itemId, onItemId);
      if (problem) return refuse(problem);
      data.targetSlot = other.slot;
    }
    if (targetId !== undefined) {
      const target = seen(runtime.know, targetId);
      if (!target) return refuse(`${targetId} is not in view`);
      if (chebyshev(target.position, here(runtime.know)) > 15)
        return refuse(`${target.name} is too far away`);
      data.targetId = targetId;
    }
    if (onItemId === undefined && targetId === undefined) {
      const problem = useAloneProblem(runtime, entry.itemId);
      if (problem) return refuse(problem);
    }
    runtime.send({ event: "inventory:use", data });
    return OK;
  },
  available: ({ know }) => inventory(know).length > 0,
});

export const dropItem = defineAction({
  name: "dropItem",
  description: `Drop items: one (itemId or slot), every one of a kind (itemId with all: true), or everything (all: true alone); at most ${MAX_DROPS_PER_CALL} per call.`,
  params: z
    .strictObject({ itemId: itemId.optional(), slot: slot.optional(), all: z.boolean().optional() })
    .refine(({ itemId: id, slot: at }) => !(id !== undefined && at !== undefined), {
      message: "name the item by itemId or slot, not both",
    })
    .refine(({ itemId: id, slot: at, all }) => all === true || id !== undefined || at !== undefined, {
      message: "name an item (itemId or slot), or drop everything with all: true",
    })
    .refine(({ slot: at, all }) => !(at !== undefined && all === true), {
      message: "all drops every item of a kind: name it by itemId, not slot",
    }),
  run(runtime, { itemId: id, slot: at, all }): ActionResult {
    if (!all) {
      const entry = entryNamed(runtime, { itemId: id, slot: at });
      if (typeof entry === "string") return refuse(entry);
      runtime.halt();
      runtime.send({ event: "player:action", data: { action: "drop", inventorySlot: entry.slot } });
      return OK;
    }
    const matches = (entry: InventoryEntry) => id === undefined || entry.itemId === id;
    if (!inventory(runtime.know).some(matches))
      return refuse(
        id === undefined ? "the inventory is empty" : `the agent carries no ${itemName(runtime, id)}`,
      );
    runtime.halt();
    let dropped = 0;
    let sent: InventoryEntry | undefined;
    let waited = 0;
    runtime.begin({
      action: "dropItem",
      step({ know }) {
        const items = inventory(know);
        // The last drop not yet shown in a sync: wait for it rather than drop the same slot twice.
        if (
          sent &&
          items.some(
            (e) => e.slot === sent!.slot && e.itemId === sent!.itemId && e.quantity === sent!.quantity,
          ) &&
          ++waited < 3
        )
          return "wait";
        waited = 0;
        if (dropped >= MAX_DROPS_PER_CALL) return "done";
        const entry = items.find(matches);
        if (!entry) return "done";
        sent = entry;
        dropped++;
        return { event: "player:action", data: { action: "drop", inventorySlot: entry.slot } };
      },
    });
    return OK;
  },
  available: ({ know }) => inventory(know).length > 0,
});

function groundItems({ know }: AgentContext): WorldEntity[] {
  return know.entities.filter((entity) => entity.kind === "item");
}

export const pickupItem = defineAction({
  name: "pickupItem",
  description:
    "Pick up an item on the ground (by its entity id, or the nearest of an itemId, or the nearest of all), walking to it first when it lies beyond reach.",
  params: z
    .strictObject({ entityId: z.string().min(1).max(64).optional(), itemId: itemId.optional() })
    .refine(({ entityId, itemId: id }) => entityId === undefined || id === undefined, {
      message: "name the item by entityId or itemId, not both",
    }),
  run(runtime, { entityId, itemId: id }) {
    const from = here(runtime.know);
    let target: WorldEntity | undefined;
    if (entityId !== undefined) {
      target = seen(runtime.know, entityId);
      if (target?.kind !== "item") return refuse(`there is no item ${entityId} in view`);
    } else {
      target = nearestOf(
        from,
        groundItems(runtime).filter((item) => id === undefined || item.type === id),
      );
      if (!target)
        return refuse(
          id === undefined
            ? "no item on the ground in view"
            : `no ${itemName(runtime, id)} on the ground in view`,
        );
    }
    if (!hasRoomFor(runtime, target.type))
      return refuse("the inventory is full: bank or drop something first (bankDeposit, dropItem)");
    const item = target;
    const legs =
      chebyshev(from, item.position) > PICKUP_RANGE ? planLegs(runtime.world, from, item.position, 0) : [];
    if (!legs) return refuse(`${item.name} cannot be reached from where the agent stands`);
    runtime.halt();
    let asked = false;
    let waited = 0;
    runtime.begin(
      legsTask("pickupItem", legs, ({ know }) => {
        if (!seen(know, item.id)) return "done";
        if (!asked) {
          asked = true;
          return { event: "player:action", data: { action: "pickup", targetId: item.id } };
        }
        return ++waited > 10 ? "done" : "wait";
      }),
    );
    return OK;
  },
  available: (context) => groundItems(context).length > 0,
});
