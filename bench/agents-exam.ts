// `npm run agents:exam [--ticks 2000] [--tick-ms 25] [--seed 34] [--port 2620]`: how well the rule
// planner plays. Starts the real server in this process on an in-memory database, with a fixed world
// seed and a short tick, runs a fresh agent per goal for a fixed number of world ticks, and prints per
// skill XP per hour (of game time: a tick is 0.6 s, whatever the tick's length here), deaths, time
// stuck (no XP for 30 s of game time) and messages the world refused. The world steps in lockstep with
// the agents (see Lockstep): a run repeats, tick for tick, however loaded the machine.
import "../src/config/quiet-env-files.js";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { listen } from "@colyseus/tools";
import { WebSocket } from "ws";
import type { Agent } from "../src/agents/agent.js";
import { type AgentView, type GoalType, goalXp } from "../src/agents/brain.js";
import { loadConfig } from "../src/config/config.js";
import { createApp } from "../src/server/app.js";
import { createRuntime } from "../src/server/runtime.js";
import { stopServer } from "../src/server/shutdown.js";
import { createLogger } from "../src/telemetry/logger.js";
import { type ExamRow, examTable, ProgressWatch } from "./agents-exam-report.js";
import { Lockstep } from "./lockstep.js";

globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

const { values } = parseArgs({
  options: {
    ticks: { type: "string", default: "2000" },
    "tick-ms": { type: "string", default: "25" },
    seed: { type: "string", default: "34" },
    port: { type: "string", default: process.env.EXAM_PORT ?? "2620" },
  },
});
const TICKS = Number(values.ticks);
const TICK_MS = Number(values["tick-ms"]);
const PORT = Number(values.port);

/** The examinees: one fresh character per goal, and the XP each goal asks for. */
const EXAMINEES: { name: string; goal: GoalType; target: number }[] = [
  // A target out of reach: the fighter trains for the whole exam.
  { name: "Exam Fighter", goal: "combat", target: 1_000_000 },
  { name: "Exam Chopper", goal: "woodcutting", target: 500 },
  { name: "Exam Miner", goal: "mining", target: 500 },
  { name: "Exam Fisher", goal: "fishing", target: 500 },
];
const PROGRESS_EVERY_TICKS = 200;
/** The world tick the agents start on (the next multiple of it, should joining take longer). */
const START_TICK = 100;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-exam-"));
  const config = loadConfig({
    NODE_ENV: "development",
    PORT: String(PORT),
    PGLITE_STORAGE: "memory",
    DATA_DIR: dataDir,
    WORLD_TICK_MS: String(TICK_MS),
    WORLD_SEED: values.seed,
    AGENTS: EXAMINEES.map((examinee) => examinee.name).join(","),
  });
  const runtime = await createRuntime(config, createLogger(process.env.LOG_LEVEL ?? "error", "json"));
  const list = runtime.agents.list.bind(runtime.agents);
  let onTick = (_tick: number): void => {};
  const lockstep = new Lockstep(list, (tick) => onTick(tick));
  runtime.tickPace = lockstep;
  const holding = holdAll(list);
  const server = await listen(createApp(runtime), PORT);
  try {
    const agents = await examinees(list);
    holding.stop();
    // Every agent starts on the same world tick, run after run: the world's dice are then thrown in the
    // same order, and the agents decide on its ticks (see DecisionClock).
    const now = Math.max(...agents.map(({ agent }) => agent.tally.tick!));
    const startTick = Math.max(START_TICK, Math.ceil((now + 10) / START_TICK) * START_TICK);
    for (const { agent } of agents) agent.clock.holdUntil(startTick);
    console.log(
      `exam: ${EXAMINEES.length} agents, ${TICKS} ticks of ${TICK_MS} ms from world tick ${startTick}, seed ${values.seed}`,
    );
    const watches = agents.map(() => new ProgressWatch());
    const baseXp = agents.map(({ agent }) => skillXp(agent));
    const reachedAt: (number | undefined)[] = agents.map(() => undefined);
    const stuckBeforeGoal: (number | undefined)[] = agents.map(() => undefined);
    let reported = 0;
    await new Promise<void>((resolve) => {
      onTick = (worldTick) => {
        const tick = worldTick - startTick;
        if (tick < 0) return;
        agents.forEach(({ agent }, index) => {
          watches[index]!.observe(tick, total(skillXp(agent)));
          const goal = agent.goal();
          if (reachedAt[index] === undefined && goal && goal.progress >= 1) {
            reachedAt[index] = tick;
            stuckBeforeGoal[index] = watches[index]!.stuckTicks;
          }
        });
        if (tick >= reported + PROGRESS_EVERY_TICKS || tick === TICKS) {
          reported = tick;
          const line = agents
            .map(
              ({ agent, goal }, index) =>
                `${agent.record.name} ${goal} +${Math.round(goalGained(agent, goal, baseXp[index]!))} XP`,
            )
            .join(", ");
          console.log(`tick ${tick}/${TICKS}: ${line}`);
        }
        if (tick === TICKS) resolve();
      };
    });
    const rows: ExamRow[] = agents.map(({ agent, goal }, index) => ({
      name: agent.record.name,
      goal,
      xpGained: gained(agent, baseXp[index]!),
      goalXp: goalGained(agent, goal, baseXp[index]!),
      deaths: agent.tally.deaths,
      stuckTicks: watches[index]!.stuckTicks,
      refused: agent.tally.refused,
      goalReachedAtTick: reachedAt[index],
      stuckBeforeGoalTicks: stuckBeforeGoal[index],
    }));
    console.log(`\n${examTable(rows, TICKS)}`);
    if (lockstep.lost)
      console.log("\nThe world went on without every agent's answer once: this run may not repeat.");
  } finally {
    await stopServer(server, runtime);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Holds every agent as soon as it is made, before it joins the world: none decides until the exam says
 * from which tick (checked each turn of the event loop, ahead of any agent's first world:update); and
 * paces it by the world's ticks (see Lockstep).
 */
function holdAll(list: () => Agent[]): { stop(): void } {
  const held = new Set<Agent>();
  const timer = setInterval(() => {
    for (const agent of list()) {
      if (held.has(agent)) continue;
      agent.clock.holdUntil(Number.POSITIVE_INFINITY);
      agent.clock.paceByTicks();
      held.add(agent);
    }
  }, 1);
  return { stop: () => clearInterval(timer) };
}

/** The agents in the world with their goals set, once each has seen the world. */
async function examinees(list: () => Agent[]): Promise<{ agent: Agent; goal: GoalType }[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const agents = list();
    const ready = EXAMINEES.map(({ name, goal, target }) => ({
      agent: agents.find((agent) => agent.record.name === name),
      goal,
      target,
    }));
    if (ready.every(({ agent }) => agent?.tally.tick !== undefined && agent.context().know.sync)) {
      for (const { agent, goal, target } of ready) await agent!.setGoal(goal, target);
      return ready.map(({ agent, goal }) => ({ agent: agent!, goal }));
    }
    if (Date.now() > deadline) throw new Error("the exam's agents did not join the world within a minute");
    await sleep(100);
  }
}

function skillXp(agent: Agent): Record<string, number> {
  const skills = agent.context().know.sync?.skills;
  return Object.fromEntries(Object.entries(skills ?? {}).map(([skill, { xp }]) => [skill, xp]));
}

function gained(agent: Agent, base: Record<string, number>): Record<string, number> {
  const now = skillXp(agent);
  return Object.fromEntries(Object.entries(now).map(([skill, xp]) => [skill, xp - (base[skill] ?? 0)]));
}

/** The XP gained in the skills its goal counts (for a fighter: its combat skills only). */
function goalGained(agent: Agent, goal: GoalType, base: Record<string, number>): number {
  const xp = gained(agent, base);
  return goalXp(
    goal,
    Object.fromEntries(
      Object.entries(xp).map(([skill, value]) => [skill, { xp: value }]),
    ) as AgentView["skills"],
  );
}

function total(xp: Record<string, number>): number {
  return Object.values(xp).reduce((sum, value) => sum + value, 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
