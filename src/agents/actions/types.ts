// The shape of the interface's agent actions: each a named function with typed, validated parameters that
// checks its preconditions against what the agent knows, then sends ordinary client messages.
import type { z } from "zod";
import type { GoalType, Step } from "../brain.js";
import type { AgentContext } from "../knowledge.js";

/** The interface's 22 action names, in its order. */
export const ACTION_NAMES = [
  "moveTo",
  "followEntity",
  "stopMovement",
  "explore",
  "approachEntity",
  "navigateTo",
  "attackEntity",
  "changeCombatStyle",
  "flee",
  "chopTree",
  "catchFish",
  "lightFire",
  "cookFood",
  "equipItem",
  "useItem",
  "dropItem",
  "pickupItem",
  "chatMessage",
  "bankDeposit",
  "bankWithdraw",
  "setGoal",
  "idle",
] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

export function isActionName(value: string): value is ActionName {
  return (ACTION_NAMES as readonly string[]).includes(value);
}

/** The protocol's answer: ok, or a reason a person (or a model) can act on. */
export type ActionResult = { ok: true } | { ok: false; reason: string };

export const OK: ActionResult = { ok: true };
export function refuse(reason: string): ActionResult {
  return { ok: false, reason };
}

/**
 * Work that takes more than one message (a walk in legs, following, dropping many): the agent asks it
 * for its next message at each decision until it is done, it fails repeatedly, or another action
 * replaces it.
 */
export interface Task {
  action: ActionName;
  /** The next message; "wait" while what was sent is under way; "done" once finished. */
  step(context: AgentContext): Step | "wait" | "done";
}

/** What an action may do to the agent: send messages as its client, start a task, set its goal. */
export interface ActionRuntime extends AgentContext {
  send(step: Step): void;
  /** Starts a task, replacing any under way. */
  begin(task: Task): void;
  /** Stops the action and path under way, and any task. */
  halt(): void;
  setGoal(type: GoalType, target?: number): Promise<void>;
}

export interface AgentAction<Params extends z.ZodType = z.ZodType> {
  name: ActionName;
  /** What it does, for people and for a model choosing among the actions. */
  description: string;
  params: Params;
  run(runtime: ActionRuntime, params: z.infer<Params>): ActionResult | Promise<ActionResult>;
  /** Whether it can do something now with its defaults (availableActionsProvider); always, if absent. */
  available?(context: AgentContext): boolean;
  /** It says the caller's words in chat: refused while the caller's account is muted. */
  speaks?: true;
}

/** Keeps each action's parameter type tied to its schema. */
export function defineAction<Params extends z.ZodType>(action: AgentAction<Params>): AgentAction<Params> {
  return action;
}
