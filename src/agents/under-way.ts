// What an agent has under way: the target of the action it last started, that action's name (the interface's),
// where its last walk was sent, and an action's work that takes several messages (a Task).
import type { WorldEntity } from "../game/world-types.js";
import { actionOfStep, type CurrentAction } from "./actions/step-names.js";
import type { Task } from "./actions/types.js";
import type { Step } from "./brain.js";

/** A task gives up after this many refusals in a row (the world is not what the agent thought). */
const MAX_TASK_FAILURES = 3;

/** The walks the interface names: under way until the agent stands where it was sent. */
const WALKS: ReadonlySet<CurrentAction | undefined> = new Set(["moveTo", "explore", "approachEntity"]);

export class UnderWay {
  /** The target of the action last started, kept at while it is still there. */
  target: string | undefined;
  /** An action's work that takes several messages (see Task). */
  task: Task | undefined;
  /** The task's refusals in a row. */
  private taskFailures = 0;
  /** The action (its interface name) of the message that started what is under way. */
  private name: CurrentAction | undefined;
  /** Where its last walk was sent. */
  private walkingTo: { x: number; z: number } | undefined;

  /** A message went; `action` names what it is part of (else it is read from the message). */
  sent(step: Step, action?: CurrentAction): void {
    // Walking gives up the action under way, as the world does.
    if (step.event !== "player:action" && step.event !== "player:move") return;
    const targetId = step.data.targetId;
    this.target = typeof targetId === "string" ? targetId : undefined;
    this.name = action ?? actionOfStep(step);
  }

  /** One of the interface's walks was sent to this tile. */
  walksTo(x: number, z: number): void {
    this.walkingTo = { x, z };
  }

  begin(task: Task): void {
    this.task = task;
    this.taskFailures = 0;
  }

  /** The world took what was asked: the task's refusals are counted in a row. */
  accepted(): void {
    this.taskFailures = 0;
  }

  /** The world refused a message: a task refused too often gives up. */
  refused(): void {
    if (this.task && ++this.taskFailures >= MAX_TASK_FAILURES) this.task = undefined;
  }

  /** The action under way (its interface name), or null, by what is in view (`seen`, its own player `selfId`'s). */
  action(seen: ReadonlyMap<string, WorldEntity>, selfId: string | undefined): CurrentAction | null {
    if (this.task) return this.task.action;
    if (this.target && seen.has(this.target)) return this.name ?? null;
    if (WALKS.has(this.name)) {
      const self = selfId === undefined ? undefined : seen.get(selfId);
      // A walk is under way until the agent stands still where it was sent.
      if (
        self &&
        this.walkingTo &&
        !(self.position.x === this.walkingTo.x && self.position.z === this.walkingTo.z)
      )
        return this.name ?? null;
    }
    return null;
  }
}
