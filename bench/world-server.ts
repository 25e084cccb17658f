// The server side of bench/world.ts, run as its child process (pinned to its own core): the real
// application on an in-memory database, with the world room's tick stages timed from outside by
// wrapping their methods. Talks to the parent over IPC (bench/stats.ts's ToServer / FromServer).
import "../src/config/quiet-env-files.js";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, PerformanceObserver, performance } from "node:perf_hooks";
import { listen } from "@colyseus/tools";
import { WebSocket } from "ws";
import { loadConfig } from "../src/config/config.js";
import { World } from "../src/game/world.js";
import { PHASES, type TickReport } from "../src/game/world-types.js";
import { SendBatch } from "../src/net/batched-sends.js";
import { WriterThread, type WrittenBatch } from "../src/net/writer-thread.js";
import { Interest } from "../src/rooms/interest.js";
import { TickPublisher } from "../src/rooms/tick-publisher.js";
import { TickTimings } from "../src/rooms/tick-timings.js";
import { WorldRoom } from "../src/rooms/WorldRoom.js";
import { createApp } from "../src/server/app.js";
import { createRuntime } from "../src/server/runtime.js";
import { stopServer } from "../src/server/shutdown.js";
import { createLogger } from "../src/telemetry/logger.js";
import { exposedGc } from "../src/tuning/exposed-gc.js";
import { putHelperThreadsBehindTheTick } from "../src/tuning/helper-threads.js";
import { referenceWorkMs } from "./machine-speed.js";
import { type FromServer, loopLag, percentiles, type ServerReport, type ToServer } from "./stats.js";

globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

const PORT = Number(process.env.BENCH_PORT ?? 2603);
const TICK_TOTAL = "tick total";
/** Each connection's frames put together and handed to the writer thread. */
const FLUSH = "  flush";
/** The writer thread's socket writes of a publish: after the tick, and not part of its total. */
const WRITER_THREAD = "writer thread";
/** From a publish's hand-over to the writer thread to its last write: how late its frames leave. */
const LAST_WRITE = "  last write";
const WRITE_WAIT = "database write";
/** The part of the tick total the main thread spent runnable but off the core (its schedstat run delay). */
const OFF_CORE = "  off the core";
/** The tick total less its time off the core: what the tick's work took, whatever else had the core. */
const ON_CORE = "  on the core";
/**
 * What the process's other threads (V8's helpers, libuv's, the writer) ran during the tick's stages: on
 * the server's one core, the main thread's time off the core is mostly theirs.
 */
const OTHER_THREADS = "  other threads";
const LAG_RESOLUTION_MS = 10;

/** Stage → milliseconds of each tick, recorded only while measuring. */
const samples = new Map<string, number[]>();
let measuring = false;
/** The room's work for the tick in progress: its world step, then what the room does with the report. */
let tickWork = 0;
let tickOffCore = 0;
let tickOtherThreads = 0;
let ticks = 0;
/** When each measured tick's world step began (wall clock, ms): the bench's probes time their moves from it. */
let tickStartedAt: Record<number, number> = {};

/**
 * Milliseconds this thread has waited, runnable, for a core (Linux's schedstat run delay): a stage
 * longer than its work was preempted, by another thread of this process or by the kernel.
 */
function offCoreMs(): number {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[1]) / 1e6;
  } catch {
    return 0;
  }
}

/** Each other thread's schedstat, kept open: read around every timed stage. */
const threadStats = new Map<string, number>();
const schedstat = Buffer.alloc(64);

/** Milliseconds the process's threads other than this one have run, in all (their schedstat run time). */
function otherThreadsMs(): number {
  const threads = readdirSync("/proc/self/task").filter((id) => Number(id) !== process.pid);
  for (const [id, fd] of threadStats) {
    if (threads.includes(id)) continue;
    closeSync(fd);
    threadStats.delete(id);
  }
  let total = 0;
  for (const id of threads) {
    try {
      let fd = threadStats.get(id);
      if (fd === undefined) {
        fd = openSync(`/proc/self/task/${id}/schedstat`, "r");
        threadStats.set(id, fd);
      }
      const length = readSync(fd, schedstat, 0, schedstat.length, 0);
      total += Number(schedstat.toString("latin1", 0, length).split(" ")[0]) / 1e6;
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return total;
}

function record(stage: string, ms: number): void {
  if (measuring) keep(stage, ms);
}

function keep(stage: string, ms: number): void {
  const list = samples.get(stage) ?? [];
  samples.set(stage, list);
  list.push(ms);
}

/**
 * Wraps the method `name` of `prototype` so that `timed` gets the milliseconds of each call and its
 * time off the core. Only for methods called once or twice a tick: reading the time off the core costs
 * microseconds.
 */
function timeCalls(
  prototype: object,
  name: string,
  timed: (ms: number, started: number, offCore: number, otherThreads: number) => void,
  /** Whether to read the other threads' run time around it too (not within another timed stage). */
  readThreads = false,
): void {
  const target = prototype as Record<string, (...args: unknown[]) => unknown>;
  const original = target[name];
  if (typeof original !== "function") throw new Error(`no method ${name} to time`);
  target[name] = function (this: unknown, ...args: unknown[]) {
    const othersRan = readThreads ? otherThreadsMs() : 0;
    const started = performance.now();
    const waited = offCoreMs();
    try {
      return original.apply(this, args);
    } finally {
      const ms = performance.now() - started;
      const offCore = offCoreMs() - waited;
      timed(ms, started, offCore, readThreads ? otherThreadsMs() - othersRan : 0);
    }
  };
}

/** When the tick's timed stages ran (performance.now() start and end), to tell which GC pauses hit a tick. */
const tickWindows: Array<[number, number]> = [];

/** Times every call of `name` on `prototype` as `stage`, adding it to the tick's total. */
function timeMethod(prototype: object, name: string, stage: string): void {
  timeCalls(
    prototype,
    name,
    (ms, started, offCore, otherThreads) => {
      record(stage, ms);
      tickWork += ms;
      tickOffCore += offCore;
      tickOtherThreads += otherThreads;
      if (measuring) tickWindows.push([started, started + ms]);
    },
    true,
  );
}

/** Stages within another, summed over the tick. */
const summed = new Map<string, number>();

/** Times every call of `name` on `prototype`, adding them up as the tick's `stage` (inside another stage). */
function sumMethod(prototype: object, name: string, stage: string): void {
  timeCalls(prototype, name, (ms) => summed.set(stage, (summed.get(stage) ?? 0) + ms));
}

/** Whether the tick in progress began while measuring: its totals are recorded once it is complete. */
let tickMeasured = false;

/**
 * Records the totals of the tick in progress, complete once the next one opens or the measuring ends: only
 * for a tick whose stages were recorded, so that each stage's n-th sample is the same tick's.
 */
function closeTick(): void {
  if (tickMeasured && tickWork > 0) {
    keep(TICK_TOTAL, tickWork);
    keep(OFF_CORE, tickOffCore);
    keep(ON_CORE, tickWork - tickOffCore);
    keep(OTHER_THREADS, tickOtherThreads);
    for (const [stage, ms] of summed) keep(stage, ms);
  }
  summed.clear();
  tickWork = 0;
}

// The world step opens a tick: the previous one's total is complete, and the report carries the phases.
const step = World.prototype.step;
World.prototype.step = function (this: World): TickReport {
  closeTick();
  tickMeasured = measuring;
  const othersRan = otherThreadsMs();
  const started = performance.now();
  const waited = offCoreMs();
  const report = step.call(this);
  tickWork = performance.now() - started;
  tickOffCore = offCoreMs() - waited;
  tickOtherThreads = otherThreadsMs() - othersRan;
  if (measuring) tickWindows.push([started, started + tickWork]);
  record("world step", tickWork);
  for (const phase of PHASES) record(`  ${phase}`, report.phaseMs[phase]);
  if (measuring) {
    ticks++;
    tickStartedAt[report.tick] = performance.timeOrigin + started;
  }
  return report;
};
timeMethod(Interest.prototype, "applyTick", "replicate");
// Private in TypeScript: the events and the per-client view updates of a tick.
timeMethod(TickPublisher.prototype, "publish", "publish");
// Within publish: the views (interest, encoding and framing), the SDK clients' state patch, and the
// flush of each connection's frames to the writer thread (an SDK client's framed then from what it was
// held). Timed once a tick each, not once per client: timing thousands of calls would add to what is
// measured.
sumMethod(Interest.prototype, "updateAll", "  views");
sumMethod(WorldRoom.prototype, "broadcastPatch", "  state patch");
sumMethod(SendBatch.prototype, "flush", FLUSH);

// The writer thread tells how long each publish's writes took it; the hand-over's time is kept to tell
// how long after it they were done.
const handedOver: number[] = [];
const post = WriterThread.prototype.post;
WriterThread.prototype.post = function (this: WriterThread, ...args: Parameters<typeof post>) {
  handedOver.push(performance.now());
  post.apply(this, args);
};
const settle = WriterThread.prototype.settle;
WriterThread.prototype.settle = function (this: WriterThread, answer: WrittenBatch) {
  record(WRITER_THREAD, answer.ms);
  record(LAST_WRITE, performance.now() - (handedOver.shift() ?? Number.NaN));
  settle.call(this, answer);
};

// The room's own timing of each tick gives the wait for its database write: the write runs between the
// room's work and its publish (on this thread, with PGlite) and is not part of the tick total.
const recordTick = TickTimings.prototype.record;
TickTimings.prototype.record = function (this: TickTimings, tick: number, phaseMs: Record<string, number>) {
  record(WRITE_WAIT, phaseMs.commit ?? 0);
  recordTick.call(this, tick, phaseMs);
};

/** Garbage-collection pauses while measuring: a slow tick is often one that a collection interrupted. */
const gcPauses: Array<{ startTime: number; duration: number }> = [];
new PerformanceObserver((list) => {
  if (measuring)
    for (const { startTime, duration } of list.getEntries()) gcPauses.push({ startTime, duration });
}).observe({ entryTypes: ["gc"] });

/** The pauses that began inside a tick's timed stages: the ones its total includes. */
function pausesInTicks(): number[] {
  return gcPauses
    .filter(({ startTime }) => tickWindows.some(([start, end]) => startTime >= start && startTime < end))
    .map(({ duration }) => duration);
}

function pauseFigures(durations: number[]) {
  return { ...percentiles(durations), total: durations.reduce((sum, ms) => sum + ms, 0) };
}

/**
 * A CPU profile and an allocation profile of the measured window only (not the bots' sign-ins), when
 * BENCH_PROFILE_DIR is set: garbage collection is a large part of a tick, and the allocations say why.
 */
class Profiler {
  private readonly session = new Session();

  constructor(private readonly directory: string) {}

  async start(): Promise<void> {
    this.session.connect();
    await this.session.post("Profiler.enable");
    await this.session.post("Profiler.start");
    await this.session.post("HeapProfiler.startSampling", {
      samplingInterval: 64 * 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }

  async stop(): Promise<void> {
    const { profile } = await this.session.post("Profiler.stop");
    const { profile: allocations } = await this.session.post("HeapProfiler.stopSampling");
    mkdirSync(this.directory, { recursive: true });
    const file = path.join(this.directory, `world-${Date.now()}`);
    writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile));
    writeFileSync(`${file}.heapprofile`, JSON.stringify(allocations));
    console.log(`profiles of the measured seconds: ${file}.cpuprofile, ${file}.heapprofile`);
    this.session.disconnect();
  }
}

function send(message: FromServer): void {
  process.send?.(message);
}

function memory() {
  exposedGc?.();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, rss: usage.rss };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-bench-"));
  const config = loadConfig({
    NODE_ENV: "development",
    PGLITE_STORAGE: "memory",
    DATA_DIR: dataDir,
    ADMIN_CODE: process.env.BENCH_ADMIN_CODE ?? "bench",
    // PostgreSQL when the bench is given one (--database-url), the embedded database otherwise.
    ...(process.env.BENCH_DATABASE_URL && { DATABASE_URL: process.env.BENCH_DATABASE_URL }),
    // With --worlds: numbered worlds, one a process, found through Redis.
    ...(process.env.BENCH_WORLDS && { WORLDS: process.env.BENCH_WORLDS }),
    ...(process.env.BENCH_REDIS_URL && { REDIS_URL: process.env.BENCH_REDIS_URL }),
    // Every bot comes from 127.0.0.1: the per-address limits would refuse most of them.
    RATE_LIMIT_AUTH_PER_MIN: "1000000",
    RATE_LIMIT_REST_PER_MIN: "1000000",
    // The write path to measure (the server's default unless the bench's environment names one).
    ...(process.env.WRITE_PATH && { WRITE_PATH: process.env.WRITE_PATH }),
    // The cap on the players a client is shown, likewise.
    ...(process.env.VIEW_MAX_PLAYERS && { VIEW_MAX_PLAYERS: process.env.VIEW_MAX_PLAYERS }),
    // How long a login may wait in a stopped process: on a machine shared with other work, longer.
    ...(process.env.WS_LOGIN_MAX_STALL_MS && { WS_LOGIN_MAX_STALL_MS: process.env.WS_LOGIN_MAX_STALL_MS }),
  });
  // Timed first, alone on the core the ticks will run on.
  const referenceMs = referenceWorkMs();
  const runtime = await createRuntime(config, createLogger("warn", "json"));
  await putHelperThreadsBehindTheTick();
  const server = await listen(createApp(runtime), PORT);
  const profiler = process.env.BENCH_PROFILE_DIR ? new Profiler(process.env.BENCH_PROFILE_DIR) : undefined;
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();

  process.on("message", async (message: ToServer) => {
    switch (message.type) {
      case "memory":
        return send({ type: "memory", memory: memory() });
      case "measure":
        samples.clear();
        gcPauses.length = 0;
        tickWindows.length = 0;
        ticks = 0;
        tickStartedAt = {};
        lag.reset();
        measuring = true;
        void profiler?.start();
        return;
      case "report": {
        measuring = false;
        closeTick();
        await profiler?.stop();
        const stages: ServerReport["stages"] = {};
        for (const [stage, list] of samples) stages[stage] = percentiles(list);
        const eventLoopLagMs = loopLag(lag, LAG_RESOLUTION_MS);
        const gcPauseMs = pauseFigures(gcPauses.map(({ duration }) => duration));
        const gcInTicksMs = pauseFigures(pausesInTicks());
        const referenceAfterMs = referenceWorkMs();
        const ticksFile = process.env.BENCH_TICKS_FILE;
        // The stages by name, without the indent that nests them in the printed table.
        if (ticksFile)
          writeFileSync(
            ticksFile,
            JSON.stringify(Object.fromEntries([...samples].map(([stage, ms]) => [stage.trim(), ms]))),
          );
        return send({
          type: "report",
          report: { ticks, stages, eventLoopLagMs, gcPauseMs, gcInTicksMs, tickStartedAt, referenceAfterMs },
        });
      }
      case "shutdown":
        stopServer(server, runtime)
          .finally(() => rmSync(dataDir, { recursive: true, force: true }))
          .finally(() => process.exit(0));
        return;
    }
  });
  send({ type: "ready", port: PORT, referenceMs });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
