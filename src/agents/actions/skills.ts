// The interface's skill actions: chopTree, catchFish, lightFire, cookFood.
import { z } from "zod";
import { cooksFood } from "../../game/cooking.js";
import { chebyshev } from "../../game/tile.js";
import type { GatheringSkill } from "../../game/types.js";
import { TINDERBOX_ITEM_ID } from "../../game/world-actions.js";
import type { WorldEntity } from "../../game/world-types.js";
import type { AgentContext } from "../knowledge.js";
import {
  carried,
  hasRoomFor,
  here,
  inventory,
  itemName,
  levels,
  nearestOf,
  seen,
  toolFor,
} from "./lookups.js";
import { type ActionResult, type ActionRuntime, defineAction, OK, refuse } from "./types.js";

const entityId = z.string().min(1).max(64).optional();
const itemId = z.string().min(1).max(64).optional();

const GATHER_VERB: Record<GatheringSkill, { action: string; noun: string }> = {
  woodcutting: { action: "chop", noun: "tree" },
  fishing: { action: "fish", noun: "fishing spot" },
  mining: { action: "mine", noun: "rock" },
};

/** The resources of a skill in view, not depleted. */
function resourcesFor({ know, world }: AgentContext, skill: GatheringSkill): WorldEntity[] {
  return know.entities.filter(
    (entity) =>
      entity.kind === "resource" &&
      !entity.depleted &&
      world.data.gathering.get(entity.type)?.skill === skill,
  );
}

/** Why the agent cannot gather from `resource` now, or undefined. */
function gatherProblem(
  context: AgentContext,
  resource: WorldEntity,
  skill: GatheringSkill,
): string | undefined {
  const def = context.world.data.gathering.get(resource.type);
  if (!def || def.skill !== skill) return `${resource.name} is not a ${GATHER_VERB[skill].noun}`;
  if (resource.depleted) return `${resource.name} is depleted; it grows back soon, or try another`;
  const level = levels(context.know)[skill];
  if (level < def.levelRequired)
    return `${skill} level ${def.levelRequired} is needed for ${resource.name} (the agent has ${level})`;
  if (!toolFor(context, skill, def.toolKind)) {
    const tool = def.toolKind.replace("_", " ");
    return `no ${tool} for ${resource.name}: carry or wield one (buy it at a store, or withdraw it from the bank)`;
  }
  if (!hasRoomFor(context, def.itemId))
    return "the inventory is full: bank or drop something first (bankDeposit, dropItem)";
  return undefined;
}

function gather(runtime: ActionRuntime, skill: GatheringSkill, id: string | undefined): ActionResult {
  const { noun, action } = GATHER_VERB[skill];
  let target: WorldEntity | undefined;
  if (id !== undefined) {
    target = seen(runtime.know, id);
    if (!target) return refuse(`${id} is not in view: name a ${noun} the agent can see`);
  } else {
    const candidates = resourcesFor(runtime, skill);
    const usable = candidates.filter((resource) => !gatherProblem(runtime, resource, skill));
    target = nearestOf(here(runtime.know), usable.length > 0 ? usable : candidates);
    if (!target) return refuse(`no ${noun} in view: navigateTo one first`);
  }
  const problem = gatherProblem(runtime, target, skill);
  if (problem) return refuse(problem);
  runtime.halt();
  runtime.send({ event: "player:action", data: { action, targetId: target.id } });
  return OK;
}

function canGather(context: AgentContext, skill: GatheringSkill): boolean {
  return resourcesFor(context, skill).some((resource) => !gatherProblem(context, resource, skill));
}

export const chopTree = defineAction({
  name: "chopTree",
  description:
    "Chop a tree in view for logs and woodcutting XP (the nearest usable one when none is named). Needs an axe.",
  params: z.strictObject({ treeId: entityId }),
  run: (runtime, { treeId }) => gather(runtime, "woodcutting", treeId),
  available: (context) => canGather(context, "woodcutting"),
});

export const catchFish = defineAction({
  name: "catchFish",
  description:
    "Fish at a fishing spot in view for raw fish and fishing XP (the nearest usable one when none is named). Needs the spot's net, rod or harpoon.",
  params: z.strictObject({ spotId: entityId }),
  run: (runtime, { spotId }) => gather(runtime, "fishing", spotId),
  available: (context) => canGather(context, "fishing"),
});

/** The logs it would light: the named ones, else the best it carries and may light. */
function logsToLight(context: AgentContext, wanted: string | undefined) {
  const { firemaking } = context.world.data;
  const level = levels(context.know).firemaking;
  const logs = inventory(context.know).filter((entry) => firemaking.has(entry.itemId));
  if (wanted !== undefined) return logs.find((entry) => entry.itemId === wanted);
  return (
    logs
      .filter((entry) => firemaking.get(entry.itemId)!.levelRequired <= level)
      .sort((a, b) => firemaking.get(b.itemId)!.xp - firemaking.get(a.itemId)!.xp)[0] ?? logs[0]
  );
}

export function fireProblem(context: AgentContext, wanted: string | undefined): string | undefined {
  const logs = logsToLight(context, wanted);
  if (!logs)
    return wanted
      ? `the agent carries no ${itemName(context, wanted)}`
      : "the agent carries no logs: chop a tree first";
  if (!carried(context.know, TINDERBOX_ITEM_ID)) return "no tinderbox: a fire needs one in the inventory";
  const recipe = context.world.data.firemaking.get(logs.itemId)!;
  const level = levels(context.know).firemaking;
  if (level < recipe.levelRequired)
    return `firemaking level ${recipe.levelRequired} is needed to light ${itemName(context, logs.itemId)} (the agent has ${level})`;
  const position = here(context.know);
  if (context.world.map.areaAt(position.x, position.z)?.safeZone)
    return "fires cannot be lit in town: walk outside it first";
  if (
    context.know.entities.some(
      (entity) => entity.type === "fire" && chebyshev(entity.position, position) === 0,
    )
  )
    return "a fire already burns on this tile: step aside first";
  return undefined;
}

export const lightFire = defineAction({
  name: "lightFire",
  description:
    "Light a fire from logs in the inventory (the best it may light when none are named). Needs a tinderbox; not in a town.",
  params: z.strictObject({ itemId }),
  run(runtime, { itemId: wanted }) {
    const problem = fireProblem(runtime, wanted);
    if (problem) return refuse(problem);
    const logs = logsToLight(runtime, wanted)!;
    runtime.halt();
    runtime.send({ event: "player:action", data: { action: "light_fire", inventorySlot: logs.slot } });
    return OK;
  },
  available: (context) => !fireProblem(context, undefined),
});

/** The fires and ranges in view. */
function cookingPlaces({ know, world }: AgentContext): WorldEntity[] {
  return know.entities.filter(
    (entity) => entity.kind === "resource" && cooksFood(world.data.stations.get(entity.type)),
  );
}

function foodToCook(context: AgentContext, wanted: string | undefined) {
  const { cooking } = context.world.data;
  const level = levels(context.know).cooking;
  const raw = inventory(context.know).filter((entry) => cooking.has(entry.itemId));
  if (wanted !== undefined) return raw.find((entry) => entry.itemId === wanted);
  return raw.find((entry) => cooking.get(entry.itemId)!.levelRequired <= level) ?? raw[0];
}

function cookProblem(context: AgentContext, wanted: string | undefined): string | undefined {
  const raw = foodToCook(context, wanted);
  if (!raw)
    return wanted
      ? `the agent carries no ${itemName(context, wanted)} it can cook`
      : "nothing to cook: the agent carries no raw food (catch fish first)";
  const recipe = context.world.data.cooking.get(raw.itemId)!;
  const level = levels(context.know).cooking;
  if (level < recipe.levelRequired)
    return `cooking level ${recipe.levelRequired} is needed to cook ${itemName(context, raw.itemId)} (the agent has ${level})`;
  if (cookingPlaces(context).length === 0)
    return "no fire or range in view: light a fire (lightFire) or navigateTo a cooking_range";
  return undefined;
}

export const cookFood = defineAction({
  name: "cookFood",
  description:
    "Cook raw food on the nearest fire or range in view (the first raw food it can cook when none is named).",
  params: z.strictObject({ itemId }),
  run(runtime, { itemId: wanted }) {
    const problem = cookProblem(runtime, wanted);
    if (problem) return refuse(problem);
    const raw = foodToCook(runtime, wanted)!;
    runtime.halt();
    runtime.send({ event: "player:action", data: { action: "cook", inventorySlot: raw.slot } });
    return OK;
  },
  available: (context) => !cookProblem(context, undefined),
});
