// Which of the interface's actions a client message carries out, for the state's currentAction when the rule
// planner sent it.
import type { Step } from "../brain.js";
import type { ActionName } from "./types.js";

/** Mining has no action among the interface's names: the state names it as the world does. */
export type CurrentAction = ActionName | "mine";

const BY_WORLD_ACTION: Record<string, CurrentAction> = {
  attack: "attackEntity",
  chop: "chopTree",
  fish: "catchFish",
  mine: "mine",
  pickup: "pickupItem",
  light_fire: "lightFire",
  cook: "cookFood",
  drop: "dropItem",
  stop: "stopMovement",
  flee: "flee",
  combat_style: "changeCombatStyle",
};

export function actionOfStep(step: Step): CurrentAction | undefined {
  if (step.event === "player:move") return "moveTo";
  if (step.event === "player:action") return BY_WORLD_ACTION[String(step.data.action)];
  return undefined;
}
