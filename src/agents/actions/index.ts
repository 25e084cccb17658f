// The registry of the interface's 22 actions, and running one: validation, the agent in the world, then the
// action's own checks.
import { z } from "zod";
import type { AgentContext } from "../knowledge.js";
import { bankDeposit, bankWithdraw } from "./banking.js";
import { attackEntity, changeCombatStyle, flee } from "./combat.js";
import { dropItem, equipItem, pickupItem, useItem } from "./inventory.js";
import { approachEntity, explore, followEntity, moveTo, navigateTo, stopMovement } from "./movement.js";
import { catchFish, chopTree, cookFood, lightFire } from "./skills.js";
import { chatMessage, idle, setGoal } from "./social.js";
import {
  ACTION_NAMES,
  type ActionName,
  type ActionResult,
  type ActionRuntime,
  type AgentAction,
  refuse,
} from "./types.js";

export const AGENT_ACTIONS: Readonly<Record<ActionName, AgentAction>> = {
  moveTo,
  followEntity,
  stopMovement,
  explore,
  approachEntity,
  navigateTo,
  attackEntity,
  changeCombatStyle,
  flee,
  chopTree,
  catchFish,
  lightFire,
  cookFood,
  equipItem,
  useItem,
  dropItem,
  pickupItem,
  chatMessage,
  bankDeposit,
  bankWithdraw,
  setGoal,
  idle,
} as Record<ActionName, AgentAction>;

/** Runs an action with parameters already validated (against its `params`). */
export async function runAction(
  runtime: ActionRuntime,
  name: ActionName,
  params: unknown,
): Promise<ActionResult> {
  if (!runtime.know.online) return refuse("the agent is not in the world; it joins again shortly");
  return AGENT_ACTIONS[name].run(runtime, params);
}

/** The names of the actions that can do something now (availableActionsProvider). */
export function availableActions(context: AgentContext): string[] {
  if (!context.know.online) return [];
  return ACTION_NAMES.filter((name) => AGENT_ACTIONS[name].available?.(context) ?? true);
}

/** Every action with what it does and its parameters as JSON Schema: what a dashboard offers to run. */
export function actionCatalog() {
  return ACTION_NAMES.map((name) => {
    const { description, params } = AGENT_ACTIONS[name];
    return { name, description, params: z.toJSONSchema(params, { io: "input" }) };
  });
}
