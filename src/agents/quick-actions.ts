// The dashboard's quick actions: one-click orders an owner gives an agent.
import { type AgentView, bankStep, nextStep, pickupStep, type WorldKnowledge } from "./brain.js";

export const QUICK_ACTIONS = [
  "woodcutting",
  "mining",
  "fishing",
  "combat",
  "pickup",
  "bank",
  "stop",
  "idle",
] as const;
export type QuickActionId = (typeof QUICK_ACTIONS)[number];

export const QUICK_ACTION_LABELS: Record<QuickActionId, string> = {
  woodcutting: "Chop trees",
  mining: "Mine rocks",
  fishing: "Catch fish",
  combat: "Fight monsters",
  pickup: "Pick up items",
  bank: "Bank the inventory",
  stop: "Stop and pause goals",
  idle: "Stand idle",
};

export function isQuickAction(value: string): value is QuickActionId {
  return (QUICK_ACTIONS as readonly string[]).includes(value);
}

/** Why the quick action cannot be done now, or undefined when it can. */
export function unavailable(id: QuickActionId, view: AgentView, world: WorldKnowledge): string | undefined {
  switch (id) {
    case "woodcutting":
    case "mining":
    case "fishing":
    case "combat":
      return nextStep(id, view, world, undefined) ? undefined : "nothing for it within reach";
    case "pickup":
      return pickupStep(view) ? undefined : "no item on the ground in view";
    case "bank":
      return bankStep(view, world) ? undefined : "nothing to bank";
    default:
      return undefined;
  }
}

/** Those that only change what the agent pursues, which it keeps out of the world too. */
const OUT_OF_WORLD: ReadonlySet<QuickActionId> = new Set(["stop", "idle"]);

/** The quick actions, each with whether it can be done now and why not (`view` undefined: out of the world). */
export function quickActionList(
  view: AgentView | undefined,
  world: WorldKnowledge,
): { id: QuickActionId; label: string; available: boolean; reason?: string }[] {
  return QUICK_ACTIONS.map((id) => {
    const reason = view
      ? unavailable(id, view, world)
      : OUT_OF_WORLD.has(id)
        ? undefined
        : "the agent is not in the world; it joins again shortly";
    return { id, label: QUICK_ACTION_LABELS[id], available: !reason, ...(reason && { reason }) };
  });
}
