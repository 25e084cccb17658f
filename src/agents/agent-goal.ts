// An agent's goal as stored, and its progress: measured from the XP its skills had when it began.
import { randomUUID } from "node:crypto";
import type { AgentRow } from "../db/agents.js";
import type { PlayerSync } from "../game/world-types.js";
import { DEFAULT_GOAL_XP, describeGoal, type Goal, type GoalType, goalXp } from "./brain.js";

/**
 * A goal as stored: the XP its skills had when it began, to measure its progress from (null until the
 * agent's first player:sync tells it, for a goal set before).
 */
export type StoredGoal = Omit<Goal, "progress"> & { baseXp: number | null };

/** An agent as stored, its goal read back. */
export interface AgentRecord extends AgentRow {
  goal: StoredGoal | null;
}

/** A new goal, measured from `sync`'s XP (or from the first player:sync to come). */
export function newGoal(
  type: GoalType,
  target: number | undefined,
  sync: PlayerSync | undefined,
): StoredGoal {
  return {
    id: randomUUID(),
    type,
    description: describeGoal(type),
    ...(type === "idle" ? {} : { target: target ?? DEFAULT_GOAL_XP }),
    startedAt: new Date().toISOString(),
    baseXp: sync ? goalXp(type, sync.skills) : null,
  };
}

/** The goal with its progress by the skills' XP in `sync`, or null. */
export function goalProgress(stored: StoredGoal | null, sync: PlayerSync | undefined): Goal | null {
  if (!stored) return null;
  const { baseXp, ...goal } = stored;
  const gained = sync && baseXp !== null ? goalXp(goal.type, sync.skills) - baseXp : 0;
  const progress =
    goal.type === "idle" ? 0 : Math.min(1, Math.max(0, gained / (goal.target ?? DEFAULT_GOAL_XP)));
  return { ...goal, progress };
}

/**
 * Writes an agent's goal and pause state as they are when each write begins, each after the one before:
 * writes that overlapped could commit out of order and leave an older state stored, which a restart
 * would bring back.
 */
export class RecordWrites {
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly record: AgentRecord,
    private readonly save: (record: AgentRecord) => Promise<void>,
  ) {}

  write(): Promise<void> {
    const write = this.last.then(() => this.save(this.record));
    this.last = write.catch(() => {});
    return write;
  }
}
