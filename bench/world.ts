// The world benchmark: N bot players (on the /ws channel, or with --sdk through the Colyseus SDK) walk,
// chat, chop and fight in one world while the server (a child process, bench/world-server.ts) times
// each stage of the room's tick.
//   npx tsx bench/world.ts [--players 500] [--seconds 180] [--warm-up 15] [--crowd] [--sdk [--messages]]
//                          [--probes 20] [--batch 50] [--profile DIR] [--ticks-file FILE]
//                          [--database-url postgres://...] [--worlds 1 [--redis-url redis://...]] [--unsteered]
// --crowd keeps every bot at the starting spawn point instead of scattering them over the world.
// --worlds N runs N numbered worlds, a server process each (PostgreSQL and Redis shared), the players
// split among them.
// With 2 or more cores the server runs pinned to core 0 and the bots to core 1 (taskset), so the
// bots' own work does not count against the server; run as root on Linux, the kernel's receiving of
// the bots' packets is moved to core 1 too (see bench/loopback-steering.ts; --unsteered leaves it).
// The server runs as production does: compiled by tsc (tsconfig.bench.json, into dist/) and started
// with `npm run start:prod`'s Node flags.
// The aim: 2,000 players, tick p99 < 50 ms.
import { type ChildProcess, fork, spawn, spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PROJECT_ROOT } from "../src/config/paths.js";
import { PHASES } from "../src/game/world-types.js";
import { nodeFlagsOf } from "../src/tuning/node-flags.js";
import { steerLoopbackReceiveTo } from "./loopback-steering.js";
import { machineSpeedLine } from "./machine-speed.js";
import {
  type FromServer,
  loopLag,
  type MemorySample,
  type Percentiles,
  percentiles,
  progress,
  type ServerReport,
  type ToServer,
} from "./stats.js";
import { Bot, type BotOptions, type ProbeSample, traffic } from "./world-bots.js";
import type { FromProbes, ToProbes } from "./world-probes.js";

const { values: args } = parseArgs({
  options: {
    players: { type: "string", default: "500" },
    /** 300 ticks: the tick p99 is then the fourth slowest, where a minute's 100 ticks would make it the second. */
    seconds: { type: "string", default: "180" },
    /**
     * Seconds of play before measuring. The first ticks once every bot acts run while V8 still compiles
     * the tick's code (its compiler threads run behind the tick, see src/tuning/helper-threads.ts): at 2,000
     * players the first 5 seconds' ticks take up to 1.5 times as long as the ones after.
     */
    "warm-up": { type: "string", default: "15" },
    /** Bots that connect at once; the next batch connects when this one has joined. */
    batch: { type: "string", default: "50" },
    crowd: { type: "boolean", default: false },
    /**
     * Bots (of the players) that only step a tile at a time and time each step from its sending to the
     * world:update that shows it: the input-to-visible latency. None for SDK bots that read the state.
     */
    probes: { type: "string", default: "20" },
    /** A PostgreSQL database for the server (its tables are created if missing); PGlite in memory otherwise. */
    "database-url": { type: "string" },
    /**
     * Numbered worlds, each in a server process of its own (on cores 0, 1, ... in turn) with the players
     * split evenly among them; more than one needs --database-url and Redis (--redis-url). No probes.
     */
    worlds: { type: "string", default: "1" },
    "redis-url": { type: "string", default: "redis://127.0.0.1:6379" },
    /** Bots join through the Colyseus SDK (binary state patches) instead of the /ws JSON channel. */
    sdk: { type: "boolean", default: false },
    /** SDK bots join with `updates: "messages"`: they are sent world:update messages instead of state patches. */
    messages: { type: "boolean", default: false },
    /**
     * Writes a CPU profile and an allocation profile of the server over the measured seconds (.cpuprofile,
     * .heapprofile) into this folder.
     */
    profile: { type: "string" },
    /**
     * Writes each stage's time in every measured tick, in the order the ticks ran, to this JSON file
     * (`{ stage: [ms, ...] }`): whether the slow ticks come in a pattern or scattered. With --worlds, one
     * file a world (`ticks-2.json` for world 2 of `--ticks-file ticks.json`).
     */
    "ticks-file": { type: "string" },
    /** Leaves the bots' TCP receive processing on the core that sends to them: the server's. */
    unsteered: { type: "boolean", default: false },
  },
});
const PLAYERS = Number(args.players);
const WORLDS = Number(args.worlds);
if (!Number.isInteger(WORLDS) || WORLDS < 1) throw new Error("--worlds takes a whole number of at least 1");
if (WORLDS > 1 && !args["database-url"])
  throw new Error(
    "--worlds above 1 needs --database-url: the worlds' processes share one PostgreSQL database",
  );
const SECONDS = Number(args.seconds);
const BATCH = Number(args.batch);
const PROBES = (args.sdk && !args.messages) || WORLDS > 1 ? 0 : Math.min(Number(args.probes), PLAYERS);
const ADMIN_CODE = "bench";
const WARM_UP_MS = Number(args["warm-up"]) * 1000;
const LAG_RESOLUTION_MS = 10;

const PLACEMENT_TIMEOUT_MS = 120_000;
const CORES = os.cpus().length;
const PINNED = CORES >= 2 && spawnSync("taskset", ["-V"]).status === 0;
/** The bots have a core of their own when each world's server has one and one is left. */
const BOTS_APART = PINNED && CORES > WORLDS;
/**
 * Otherwise they run at idle priority (SCHED_IDLE), on the cores the servers leave idle between ticks:
 * a server's thread is never kept waiting for them.
 */
const BOTS_IDLE = PINNED && !BOTS_APART && spawnSync("chrt", ["--version"]).status === 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A child process of the bench over IPC: what it is told, and its replies awaited by type. A child that
 * fails ends the bench.
 */
class ChildChannel<To, From extends { type: string }> {
  private readonly waiting = new Map<string, (message: From) => void>();

  constructor(
    readonly child: ChildProcess,
    name: string,
  ) {
    child.on("message", (message: From) => {
      this.waiting.get(message.type)?.(message);
      this.waiting.delete(message.type);
    });
    child.on("exit", (code) => {
      if (code !== 0) {
        console.error(`${name} exited with ${code}`);
        process.exit(1);
      }
    });
  }

  tell(message: To): void {
    this.child.send(message as object);
  }

  next<T extends From["type"]>(type: T): Promise<Extract<From, { type: T }>> {
    return new Promise((resolve) => this.waiting.set(type, resolve as (message: From) => void));
  }
}

/** Compiles the server and its bench side as `npm run build` does, into dist/; returns the script to run. */
function buildServer(): string {
  process.stdout.write("building     tsc -p tsconfig.bench.json\n");
  const tsc = path.join(PROJECT_ROOT, "node_modules/typescript/bin/tsc");
  const built = spawnSync(process.execPath, [tsc, "-p", "tsconfig.bench.json"], {
    cwd: PROJECT_ROOT,
    stdio: "inherit",
  });
  if (built.status !== 0) throw new Error("the server did not compile (see tsc's errors above)");
  return path.join(PROJECT_ROOT, "dist/bench/world-server.js");
}

/** The file world `world`'s server writes its ticks to (see --ticks-file). */
function ticksFileOf(file: string, world: number): string {
  if (WORLDS === 1) return path.resolve(file);
  const { dir, name, ext } = path.parse(path.resolve(file));
  return path.join(dir, `${name}-${world}${ext}`);
}

/** The server child, with a request/response helper over its IPC channel. */
class ServerProcess {
  private readonly channel: ChildChannel<ToServer, FromServer>;

  /** `world`: its place among the worlds' processes, which picks its core and port. */
  constructor(
    script: string,
    readonly world = 1,
  ) {
    const node = [process.execPath, ...nodeFlagsOf("start:prod"), script];
    const [command, ...commandArgs] = PINNED ? ["taskset", "-c", String(this.core), ...node] : node;
    const child = spawn(command!, commandArgs, {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: {
        ...process.env,
        BENCH_ADMIN_CODE: ADMIN_CODE,
        // Only --database-url picks PostgreSQL (a BENCH_DATABASE_URL exported for bench/trades.ts does not).
        BENCH_DATABASE_URL: args["database-url"] ?? "",
        BENCH_PROFILE_DIR: args.profile ? path.resolve(args.profile) : "",
        BENCH_TICKS_FILE: args["ticks-file"] ? ticksFileOf(args["ticks-file"], world) : "",
        BENCH_PORT: String(Number(process.env.BENCH_PORT ?? 2603) + world - 1),
        ...(WORLDS > 1 && { BENCH_WORLDS: String(WORLDS), BENCH_REDIS_URL: args["redis-url"] }),
      },
    });
    this.channel = new ChildChannel(child, "bench server");
  }

  get core(): number {
    return (this.world - 1) % CORES;
  }

  /** The server's port, and how long the reference work took on its core (see bench/machine-speed.ts). */
  async ready(): Promise<{ port: number; referenceMs: number }> {
    return this.channel.next("ready");
  }

  async memory(): Promise<MemorySample> {
    return (await this.ask("memory")).memory;
  }

  async report(): Promise<ServerReport> {
    return (await this.ask("report")).report;
  }

  /** Sends a request and waits for the reply of the same type. */
  private async ask<T extends "memory" | "report">(type: T): Promise<Extract<FromServer, { type: T }>> {
    const reply = this.channel.next(type);
    this.tell({ type });
    return reply;
  }

  tell(message: ToServer): void {
    this.channel.tell(message);
  }

  exited(): Promise<void> {
    return new Promise((resolve) => this.channel.child.once("exit", () => resolve()));
  }
}

/** The bots that play, in this process; the probes are the last PROBES players, in their own. */
const LOAD_BOTS = PLAYERS - PROBES;

/** The probes' process's scheduling priority (nice): ahead of the bots'. */
const PROBES_PRIORITY = -10;

/** The probes' process (bench/world-probes.ts): started once the other bots are in, on their core. */
class ProbesProcess {
  private readonly channel: ChildChannel<ToProbes, FromProbes>;

  constructor(options: Omit<BotOptions, "probe">) {
    // Forked with this process's flags (tsx's loader) and core.
    const child = fork(fileURLToPath(new URL("./world-probes.ts", import.meta.url)));
    // Ahead of the bots on the core they share, as a player's own machine is not busy with the others'
    // updates (raising a priority needs root; elsewhere the probes share the core evenly).
    try {
      if (child.pid !== undefined) os.setPriority(child.pid, PROBES_PRIORITY);
    } catch {}
    this.channel = new ChildChannel(child, "the probes' process");
    const indexes = Array.from({ length: PROBES }, (_, i) => LOAD_BOTS + i);
    this.channel.tell({ type: "start", options, indexes });
  }

  /** How many probes reached their spot. */
  async placed(): Promise<number> {
    return (await this.channel.next("placed")).placed;
  }

  measure(): void {
    this.channel.tell({ type: "measure" });
  }

  async samples(): Promise<ProbeSample[]> {
    const reply = this.channel.next("samples");
    this.channel.tell({ type: "stop" });
    return (await reply).samples;
  }
}

/**
 * The probes' input-to-visible latency: from sending a step to seeing it in a world:update; and the same
 * from the start of the tick that made the step (the server's own delay: the step's wait for the next tick
 * left out). Samples whose tick began outside the measured seconds are left out.
 */
function probeLatency(samples: readonly ProbeSample[], tickStartedAt: Record<number, number>) {
  const timed = samples.filter(({ tick }) => tickStartedAt[tick] !== undefined);
  return {
    total: percentiles(timed.map(({ sentAt, arrivedAt }) => arrivedAt - sentAt)),
    fromTick: percentiles(timed.map(({ tick, arrivedAt }) => arrivedAt - tickStartedAt[tick]!)),
    tickWait: percentiles(timed.map(({ tick, sentAt }) => tickStartedAt[tick]! - sentAt)),
    tickInterval: percentiles(
      Object.keys(tickStartedAt)
        .map(Number)
        .filter((tick) => tickStartedAt[tick - 1] !== undefined)
        .map((tick) => tickStartedAt[tick]! - tickStartedAt[tick - 1]!),
    ),
  };
}

/** `ports`: each world's server's, by world; with more than one world, a bot names its world. */
function botOptions(ports: readonly number[], world = 1): Omit<BotOptions, "probe"> {
  return {
    baseUrl: `http://127.0.0.1:${ports[world - 1]}`,
    adminCode: ADMIN_CODE,
    scatter: !args.crowd,
    transport: args.sdk ? "sdk" : "ws",
    updates: args.messages ? "messages" : "state",
    ...(WORLDS > 1 && { world }),
  };
}

/** The players of a world: the bots, dealt to the worlds in turn, and (with one world) the probes. */
function playersIn(world: number): number {
  return Math.ceil((LOAD_BOTS - (world - 1)) / WORLDS) + (WORLDS === 1 ? PROBES : 0);
}

/** The bots, the worlds' in turn. */
async function connectBots(ports: readonly number[]): Promise<Bot[]> {
  const bots: Bot[] = [];
  const started = Date.now();
  for (let first = 0; first < LOAD_BOTS; first += BATCH) {
    const size = Math.min(BATCH, LOAD_BOTS - first);
    const joined = Array.from(
      { length: size },
      (_, i) =>
        new Promise<Bot>(
          (resolve, reject) =>
            new Bot(first + i, botOptions(ports, ((first + i) % WORLDS) + 1), resolve, reject),
        ),
    );
    bots.push(...(await Promise.all(joined)));
    progress("connecting", bots.length, LOAD_BOTS, `${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return bots;
}

async function placeBots(bots: Bot[]): Promise<void> {
  const deadline = Date.now() + PLACEMENT_TIMEOUT_MS;
  for (;;) {
    const placed = bots.filter((bot) => bot.arrived).length;
    progress(args.crowd ? "gathering" : "scattering", placed, bots.length);
    if (placed === bots.length) return;
    if (Date.now() > deadline) {
      process.stderr.write(`\n${bots.length - placed} bots never reached their spot; measuring anyway\n`);
      return;
    }
    await sleep(250);
  }
}

/** Lets every bot act until `ms` have passed, drawing a progress bar when `label` is given. */
async function play(bots: Bot[], ms: number, label?: string): Promise<void> {
  const started = Date.now();
  const actions = setInterval(() => {
    const now = Date.now();
    for (const bot of bots) bot.act(now);
  }, 100);
  while (Date.now() - started < ms) {
    if (label) progress(label, Math.round((Date.now() - started) / 1000), ms / 1000);
    await sleep(Math.min(1000, ms - (Date.now() - started)));
  }
  if (label) progress(label, ms / 1000, ms / 1000);
  clearInterval(actions);
}

/** The room's tick in the order it runs: the world's phases, replication, events and views, schema patches. */
const STAGE_ORDER = [
  "world step",
  ...PHASES.map((phase) => `  ${phase}`),
  "replicate",
  "publish",
  "  views",
  "  state patch",
  "  flush",
  "tick total",
  "  off the core",
  "  other threads",
  "  on the core",
  // Between the room's work and its publish, outside the total: the wait for the tick's write.
  "database write",
  // After the publish, outside the total: the socket writes, on a thread of their own.
  "writer thread",
  "  last write",
];
const ms = (value: number) => value.toFixed(2).padStart(8);
const row = (name: string, p: Percentiles) =>
  `${name.padEnd(16)}${ms(p.p50)}${ms(p.p99)}${ms(p.max)}${String(p.count).padStart(8)}`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** Where the servers and the bots run. */
function placement(): string {
  const servers = WORLDS === 1 ? "server on core 0" : `servers on cores 0 to ${WORLDS - 1}`;
  if (BOTS_APART) return `${servers}, bots on core ${WORLDS}`;
  if (BOTS_IDLE) return `${servers}, bots on the time they leave idle (SCHED_IDLE)`;
  return PINNED ? `${servers}, bots sharing their cores` : "server and bots sharing cores";
}

function print(
  setting: string[],
  players: number,
  report: ServerReport,
  botLag: Percentiles,
  before: MemorySample,
  after: MemorySample,
  bytes: number,
  frames: number,
  latency: ReturnType<typeof probeLatency>,
) {
  const seconds = SECONDS;
  const total = report.stages["tick total"];
  const lines = [
    "",
    `world bench: ${players} ${args.sdk ? `SDK (${args.messages ? "world:update messages" : "state patches"})` : "/ws"} players${args.crowd ? " crowded at the spawn point" : " scattered over the world"}, ` +
      `${args["database-url"] ? "PostgreSQL" : "PGlite in memory"}, WRITE_PATH=${process.env.WRITE_PATH || "thread"}, ` +
      `VIEW_MAX_PLAYERS=${process.env.VIEW_MAX_PLAYERS || "255"}, ` +
      `${seconds} s measured, ${report.ticks} ticks, ` +
      placement(),
    ...setting,
    "",
    `${"stage (ms)".padEnd(16)}${"p50".padStart(8)}${"p99".padStart(8)}${"max".padStart(8)}${"count".padStart(8)}`,
    ...STAGE_ORDER.filter((stage) => report.stages[stage]).map((stage) => row(stage, report.stages[stage]!)),
    "",
    ...(PROBES > 0
      ? [
          `input to visible (${PROBES} probes stepping a tile; ms)`,
          row("move to seen", latency.total),
          row("  from its tick", latency.fromTick),
          row("  its tick's wait", latency.tickWait),
          row("tick interval", latency.tickInterval),
          "",
        ]
      : []),
    row("server loop lag", report.eventLoopLagMs),
    row("server gc pause", report.gcPauseMs),
    row("  within ticks", report.gcInTicksMs),
    row("bots loop lag", botLag),
    "",
    `sent per player per second: ${(bytes / LOAD_BOTS / seconds).toFixed(0)} B in ${(frames / LOAD_BOTS / seconds).toFixed(1)} frames ` +
      `(${kib(bytes / seconds)}/s in all)`,
    `garbage collection: ${report.gcPauseMs.total.toFixed(0)} ms in ${report.gcPauseMs.count} pauses over ${seconds} s, ` +
      `${report.gcInTicksMs.total.toFixed(0)} ms of it in ${report.gcInTicksMs.count} within ticks`,
    `memory per player: ${kib((after.heapUsed - before.heapUsed) / players)} of heap ` +
      `(server heap ${mib(before.heapUsed)} before the bots, ${mib(after.heapUsed)} with them; rss ${mib(after.rss)})`,
    total
      ? `tick total p99 ${total.p99.toFixed(2)} ms: ${total.p99 < 50 ? "within" : "OVER"} the 50 ms aim` +
        (total.count < 100 ? ` (of ${total.count} ticks: their p99 is the slowest one)` : "")
      : "",
  ];
  console.log(lines.join("\n"));
}

async function main(): Promise<void> {
  // Every thread (-a): V8's collector and compiler threads, started with the process, would otherwise
  // go on running on the servers' cores.
  if (BOTS_APART)
    spawnSync("taskset", ["-a", "-pc", String(WORLDS), String(process.pid)], { stdio: "ignore" });
  const steering =
    BOTS_APART && !args.unsteered
      ? steerLoopbackReceiveTo(WORLDS)
      : "loopback receive where Linux puts it: on the sending core";
  process.stdout.write(`${steering}\n`);
  const script = buildServer();
  const servers: ServerProcess[] = [];
  const started: { port: number; referenceMs: number }[] = [];
  // One after the other: each opens the lowest-numbered world that runs nowhere yet.
  for (let world = 1; world <= WORLDS; world++) {
    const server = new ServerProcess(script, world);
    servers.push(server);
    started.push(await server.ready());
  }
  const ports = started.map(({ port }) => port);
  // Once the servers are started: a child inherits its parent's scheduling policy.
  if (BOTS_IDLE) spawnSync("chrt", ["--idle", "-a", "-p", "0", String(process.pid)], { stdio: "ignore" });
  const before = await Promise.all(servers.map((server) => server.memory()));

  const bots = await connectBots(ports);
  const probing = PROBES > 0 ? new ProbesProcess(botOptions(ports)) : undefined;
  await placeBots(bots);
  const placedProbes = await probing?.placed();
  if (probing && placedProbes !== PROBES)
    process.stderr.write(`\n${PROBES - placedProbes!} probes never reached their spot; measuring anyway\n`);
  await play(bots, WARM_UP_MS, "warming up");

  const botLag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  botLag.enable();
  traffic.bytes = 0;
  traffic.frames = 0;
  for (const server of servers) server.tell({ type: "measure" });
  probing?.measure();
  await play(bots, SECONDS * 1000, "measuring");
  const probeSamples = (await probing?.samples()) ?? [];
  const { bytes, frames } = traffic;
  const reports = await Promise.all(servers.map((server) => server.report()));
  botLag.disable();
  // Taken once the measuring is over: it collects the whole heap first, and the ticks right after a
  // full collection run slower (for several seconds at 2,000 players) than the rest.
  const after = await Promise.all(servers.map((server) => server.memory()));

  for (const [i, server] of servers.entries())
    print(
      [
        steering,
        machineSpeedLine(started[i]!.referenceMs, reports[i]!.referenceAfterMs),
        ...(WORLDS > 1
          ? [`world ${server.world} of ${WORLDS}: its own server process, on core ${server.core}`]
          : []),
      ],
      playersIn(server.world),
      reports[i]!,
      loopLag(botLag, LAG_RESOLUTION_MS),
      before[i]!,
      after[i]!,
      bytes,
      frames,
      probeLatency(probeSamples, reports[i]!.tickStartedAt),
    );
  for (const bot of bots) bot.close();
  for (const server of servers) server.tell({ type: "shutdown" });
  await Promise.all(servers.map((server) => server.exited()));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
