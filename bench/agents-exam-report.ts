// The agents exam's bookkeeping and its table: plain functions over what was observed each tick, so
// that they can be tested without a server.

/** The game's tick in game time, whatever WORLD_TICK_MS the exam runs at: 2,000 ticks are 20 minutes. */
export const GAME_TICK_SECONDS = 0.6;
/** No XP gained for this long (game time) counts as stuck from then on. */
export const STUCK_AFTER_SECONDS = 30;
const STUCK_AFTER_TICKS = Math.round(STUCK_AFTER_SECONDS / GAME_TICK_SECONDS);

/** Counts the ticks an agent spent stuck: from 30 s after its last XP gain until its next. */
export class ProgressWatch {
  private lastTick: number | undefined;
  private lastGainTick: number | undefined;
  private lastXp = 0;
  stuckTicks = 0;

  /** The agent's total XP as of world tick `tick` (ticks only move forwards; a repeat is ignored). */
  observe(tick: number, totalXp: number): void {
    if (this.lastTick === undefined || this.lastGainTick === undefined) {
      this.lastTick = tick;
      this.lastGainTick = tick;
      this.lastXp = totalXp;
      return;
    }
    if (tick <= this.lastTick) return;
    // Each tick since the last observation that lay past the 30 s without a gain is stuck.
    const stuckFrom = this.lastGainTick + STUCK_AFTER_TICKS;
    const gained = totalXp > this.lastXp;
    const through = gained ? tick - 1 : tick;
    this.stuckTicks += Math.max(0, through - Math.max(this.lastTick, stuckFrom));
    if (gained) this.lastGainTick = tick;
    this.lastXp = totalXp;
    this.lastTick = tick;
  }
}

export interface ExamRow {
  name: string;
  goal: string;
  /** XP gained in the exam, by skill, and in the skills of its goal. */
  xpGained: Record<string, number>;
  goalXp: number;
  deaths: number;
  stuckTicks: number;
  refused: number;
  /** Ticks into the exam when its goal was reached, if it was, and how many of those it was stuck. */
  goalReachedAtTick: number | undefined;
  stuckBeforeGoalTicks: number | undefined;
}

export function xpPerHour(xp: number, ticks: number): number {
  return ticks > 0 ? Math.round((xp * 3600) / (ticks * GAME_TICK_SECONDS)) : 0;
}

/** A plain-text table: a row per agent, a column of XP per hour per skill any agent gained XP in. */
export function examTable(rows: readonly ExamRow[], ticks: number): string {
  const skills = [...new Set(rows.flatMap((row) => Object.keys(row.xpGained)))]
    .filter((skill) => rows.some((row) => (row.xpGained[skill] ?? 0) > 0))
    .sort();
  const header = [
    "agent",
    "goal",
    "goal XP",
    ...skills.map((skill) => `${skill} XP/h`),
    "deaths",
    "stuck",
    "refused",
    "goal reached",
    "stuck till goal",
  ];
  const lines = rows.map((row) => [
    row.name,
    row.goal,
    String(Math.round(row.goalXp)),
    ...skills.map((skill) => String(xpPerHour(row.xpGained[skill] ?? 0, ticks))),
    String(row.deaths),
    percent(row.stuckTicks, ticks),
    String(row.refused),
    row.goalReachedAtTick === undefined ? "no" : `tick ${row.goalReachedAtTick}`,
    row.goalReachedAtTick === undefined ? "-" : percent(row.stuckBeforeGoalTicks ?? 0, row.goalReachedAtTick),
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...lines.map((line) => line[column]!.length)),
  );
  const format = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [format(header), widths.map((width) => "-".repeat(width)).join("  "), ...lines.map(format)].join(
    "\n",
  );
}

function percent(part: number, whole: number): string {
  return `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;
}
