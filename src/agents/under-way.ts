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

/**
 * A walk during which the agent has not moved for this long is over, short of where it was sent: the
 * world moves a walking player every tick (600 ms), and one that died or was stopped by the world moves
 * no more. Without this, its walk would be under way for good and nothing would decide again.
 */
export const WALK_STALL_MS = 5000;

export class UnderWay {
  /** The target of the action last started, kept at while it is still there. */
  target: string | undefined;
  /** An action's work that takes several messages (see Task). */
  task: Task | undefined;
  /** The task's refusals in a row. */
  private taskFailures = 0;
  /** The action (its interface name) of the message that started what is under way. */
  private name: CurrentAction | undefined;
  /** Where its last walk was sent, while it is under way. */
  private walkingTo: { x: number; z: number } | undefined;
  /** Where the agent last stood, and since when (see WALK_STALL_MS). */
  private stood: { x: number; z: number; since: number } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** A message went; `action` names what it is part of (else it is read from the message). */
  sent(step: Step, action?: CurrentAction): void {
    // Walking gives up the action under way, as the world does, and an action gives up the walk.
    if (step.event !== "player:action" && step.event !== "player:move") return;
    const targetId = step.data.targetId;
    this.target = typeof targetId === "string" ? targetId : undefined;
    this.name = action ?? actionOfStep(step);
    this.walkingTo =
      step.event === "player:move" ? { x: Number(step.data.x), z: Number(step.data.z) } : undefined;
    this.stood = undefined;
  }

  begin(task: Task): void {
    this.task = task;
    this.taskFailures = 0;
  }

  /** The world took what was asked: the task's refusals are counted in a row. */
  accepted(): void {
    this.taskFailures = 0;
  }

  /**
   * The world refused a message (`event`; undefined: what is under way failed): a task refused too
   * often gives up, and a refused walk is over.
   */
  refused(event?: string): void {
    if (this.task && ++this.taskFailures >= MAX_TASK_FAILURES) this.task = undefined;
    if (event === undefined || event === "player:move") this.walkingTo = undefined;
  }

  /** The action under way (its interface name), or null, by what is in view (`seen`, its own player `selfId`'s). */
  action(seen: ReadonlyMap<string, WorldEntity>, selfId: string | undefined): CurrentAction | null {
    if (this.task) return this.task.action;
    if (this.target && seen.has(this.target)) return this.name ?? null;
    if (WALKS.has(this.name)) {
      const self = selfId === undefined ? undefined : seen.get(selfId);
      // A walk is under way until the agent stands where it was sent, or stands still short of it.
      if (self && this.walking(self.position)) return this.name ?? null;
    }
    return null;
  }

  /** Whether the walk is still under way, the agent standing at `at`. */
  private walking(at: { x: number; z: number }): boolean {
    const to = this.walkingTo;
    if (!to || (at.x === to.x && at.z === to.z)) return false;
    const now = this.now();
    if (!this.stood || this.stood.x !== at.x || this.stood.z !== at.z) {
      this.stood = { x: at.x, z: at.z, since: now };
      return true;
    }
    if (now - this.stood.since < WALK_STALL_MS) return true;
    this.walkingTo = undefined;
    return false;
  }
}
