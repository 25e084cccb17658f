// The dashboard's quick actions: one-click orders an owner gives an agent.
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
