// `npm test`: every test file, then the room and /ws suites again on the stream write path
// (WRITE_PATH=stream), spread over a few mocha processes that run side by side. Most tests wait on
// sockets, child processes and timers rather than the CPU, so two processes a core keep the cores busy
// (on two cores: four finished in 425 s where three took 512 and five 460). Each process gets its own
// ports (TEST_PORT), PostgreSQL database and Redis server, since the suites empty theirs. A file with a
// failure is run again at the end, alone: a failure that does not come again is named as one under
// load, and fails the run only with `--strict`.
// `npm test -- <files>` runs just those files, in one process.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  DEFAULT_TEST_PORT,
  MAX_TEST_PROCESSES,
  PORTS_PER_PROCESS,
  REDIS_PORT_OFFSET,
  refusedPorts,
} from "../test/support/runner-ports.js";

const ROOT = path.resolve(import.meta.dirname, "..");
/** Seconds each file took when last recorded (`npm test -- --record`), to balance the processes. */
const DURATIONS_FILE = path.join(ROOT, "test/support/durations.json");
/** The weight of a file not recorded yet. */
const UNRECORDED_SECONDS = 5;
/**
 * What starting one more mocha process in a process's share costs (loading the suites' modules, the
 * first database): a share takes the stream files without one when another share can as well.
 */
const PROCESS_START_SECONDS = 8;
/** The suites whose frames go through the outbox, run again with WRITE_PATH=stream. */
const STREAM_SUITES = ["test/rooms/", "test/ws/"];

const MOCHA_ARGS = [
  "--no-config",
  "--node-option",
  "import=tsx",
  "--require",
  "test/setup.ts",
  "--timeout",
  "20000",
  "--exit",
  "--reporter",
  "./test/support/summary-reporter.cjs",
];

interface Group {
  files: string[];
  env: Record<string, string>;
}

interface Shard {
  index: number;
  groups: Group[];
  seconds: number;
}

interface Outcome {
  passed: number;
  failed: number;
  skipped: number;
  /** The process ended without its summary line (it crashed, or a test hung past --exit). */
  incomplete: boolean;
  durations: Record<string, number>;
  /** The files with a failed test or hook, with the variables they ran with. */
  failedFiles: Group[];
  /** Failures in no file (a root hook's), which no file's run again can clear. */
  unattributedFailures: number;
}

function testFiles(dir = "test"): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return testFiles(relative);
      return entry.name.endsWith(".test.ts") ? [relative] : [];
    })
    .sort();
}

function recordedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, "utf8"));
  } catch {
    return {};
  }
}

/** A file's entry in the durations: its name, and the variables it runs with when it runs again. */
function keyOf(file: string, env: Record<string, string>): string {
  const variables = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  return variables.length ? `${file} ${variables.join(" ")}` : file;
}

/** The longest files first, each to the process with the least work so far. */
function spread(runs: Group[], shardCount: number, durations: Record<string, number>): Shard[] {
  const shards: Shard[] = Array.from({ length: shardCount }, (_, index) => ({
    index,
    groups: [],
    seconds: 0,
  }));
  const items = runs.flatMap((run) =>
    run.files.map((file) => ({
      file,
      env: run.env,
      seconds: durations[keyOf(file, run.env)] ?? UNRECORDED_SECONDS,
    })),
  );
  items.sort((a, b) => b.seconds - a.seconds);
  const groupOf = (shard: Shard, env: Record<string, string>) =>
    shard.groups.find((candidate) => candidate.env === env);
  const costIn = (shard: Shard, env: Record<string, string>) =>
    shard.seconds + (groupOf(shard, env) ? 0 : PROCESS_START_SECONDS);
  for (const item of items) {
    const shard = shards.reduce((least, next) =>
      costIn(next, item.env) < costIn(least, item.env) ? next : least,
    );
    shard.seconds = costIn(shard, item.env) + item.seconds;
    const group = groupOf(shard, item.env);
    if (group) group.files.push(item.file);
    else shard.groups.push({ files: [item.file], env: item.env });
  }
  return shards;
}

/** A database of the shard's own beside TEST_DATABASE_URL's (made the first time, kept after). */
async function shardDatabase(baseUrl: string, index: number): Promise<string> {
  const url = new URL(baseUrl);
  const name = `${url.pathname.slice(1) || "test"}_shard${index}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    const found = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (!found.rowCount) await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let said = "";
    redis.once("error", (error) =>
      reject(new Error(`cannot start redis-server for a test process: ${error.message}`)),
    );
    redis.stdout?.on("data", (chunk: Buffer) => {
      said += chunk;
      if (said.includes("Ready to accept connections")) resolve(redis);
    });
    redis.once("exit", (code) =>
      reject(new Error(`redis-server on port ${port} exited (${code}): ${said.trim()}`)),
    );
  });
}

/** Runs one shard's groups one after another; its output is kept and printed whole at the end. */
async function runShard(
  shard: Shard,
  env: NodeJS.ProcessEnv,
  durationsOut: string,
): Promise<Outcome & { log: string }> {
  const outcome: Outcome & { log: string } = {
    passed: 0,
    failed: 0,
    skipped: 0,
    incomplete: false,
    durations: {},
    failedFiles: [],
    unattributedFailures: 0,
    log: "",
  };
  for (const [number, group] of shard.groups.entries()) {
    const out = `${durationsOut}.${number}`;
    const mocha = spawn(
      process.execPath,
      [path.join(ROOT, "node_modules/mocha/bin/mocha.js"), ...MOCHA_ARGS, ...group.files],
      {
        cwd: ROOT,
        env: { ...env, ...group.env, TEST_DURATIONS_OUT: out, TEST_FAILURES_OUT: `${out}.failed` },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const variables = keyOf("", group.env).trim();
    let log = `\n==== test process ${shard.index + 1}, ${group.files.length} files${variables && ` with ${variables}`}\n`;
    mocha.stdout?.on("data", (chunk: Buffer) => {
      log += chunk;
    });
    mocha.stderr?.on("data", (chunk: Buffer) => {
      log += chunk;
    });
    await new Promise((resolve) => mocha.once("close", resolve));
    const summary = log.match(/^(\d+) passed, (\d+) failed, (\d+) skipped$/m);
    const [passed, failed, skipped] = (summary?.slice(1) ?? []).map(Number);
    outcome.passed += passed ?? 0;
    outcome.failed += failed ?? 0;
    outcome.skipped += skipped ?? 0;
    // Mocha exits with the number of failures: any other end is a process that did not finish its run.
    if (!summary || (mocha.exitCode !== 0 && !failed)) outcome.incomplete = true;
    try {
      const durations: Record<string, number> = JSON.parse(readFileSync(out, "utf8"));
      for (const [file, seconds] of Object.entries(durations))
        outcome.durations[keyOf(file, group.env)] = seconds;
      const failed: { files: string[]; unattributed: number } = JSON.parse(
        readFileSync(`${out}.failed`, "utf8"),
      );
      if (failed.files.length) outcome.failedFiles.push({ files: failed.files, env: group.env });
      outcome.unattributedFailures += failed.unattributed;
    } catch {
      // No durations: the process died before the end of its run, which `incomplete` already says.
    }
    outcome.log += log;
  }
  return outcome;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const record = args.includes("--record");
  const strict = args.includes("--strict");
  const chosen = args.filter((arg) => arg !== "--record" && arg !== "--strict");
  const basePort = Number(process.env.TEST_PORT ?? DEFAULT_TEST_PORT);
  const shardCount = chosen.length
    ? 1
    : Math.max(
        1,
        Number(process.env.TEST_PROCESSES ?? Math.min(MAX_TEST_PROCESSES, 2 * os.availableParallelism())),
      );
  const refused = refusedPorts(basePort, shardCount);
  if (refused.length) {
    console.error(
      `TEST_PORT ${basePort} with ${shardCount} test process(es) puts servers on ports fetch refuses to reach, ` +
        `where they would never answer:\n  ${refused.join("\n  ")}\nChoose another TEST_PORT (or fewer TEST_PROCESSES).`,
    );
    process.exit(1);
  }
  if (chosen.length) {
    const mocha = spawn(
      process.execPath,
      [path.join(ROOT, "node_modules/mocha/bin/mocha.js"), ...MOCHA_ARGS, ...chosen],
      {
        cwd: ROOT,
        stdio: "inherit",
      },
    );
    mocha.once("close", (code) => process.exit(code ?? 1));
    return;
  }

  const all = testFiles();
  const runs: Group[] = [
    { files: all, env: {} },
    {
      files: all.filter((file) => STREAM_SUITES.some((folder) => file.startsWith(folder))),
      env: { WRITE_PATH: "stream" },
    },
  ];
  const durations = recordedDurations();
  const shards = spread(runs, shardCount, durations);
  const unrecorded = all.filter((file) => durations[file] === undefined);
  if (unrecorded.length)
    console.log(
      `(not in ${path.relative(ROOT, DURATIONS_FILE)} yet, counted as ${UNRECORDED_SECONDS} s: ${unrecorded.join(", ")}; npm test -- --record)`,
    );

  const redisServers: ChildProcess[] = [];
  // Stopped by hand (Ctrl-C, a CI timeout): the Redis servers started here would outlive the run and
  // hold their ports against the next one.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      for (const redis of redisServers) redis.kill();
      process.exit(130);
    });
  const started = Date.now();
  try {
    const envs = await Promise.all(
      shards.map(async (shard) => {
        const port = basePort + shard.index * PORTS_PER_PROCESS;
        const env: NodeJS.ProcessEnv = { ...process.env, TEST_PORT: String(port) };
        if (shard.index > 0 && process.env.TEST_DATABASE_URL)
          env.TEST_DATABASE_URL = await shardDatabase(process.env.TEST_DATABASE_URL, shard.index);
        if (shard.index > 0 && process.env.TEST_REDIS_URL) {
          const redisPort = port + REDIS_PORT_OFFSET;
          redisServers.push(await startRedis(redisPort));
          env.TEST_REDIS_URL = `redis://127.0.0.1:${redisPort}`;
        }
        return env;
      }),
    );
    const fileCount = runs.reduce((sum, run) => sum + run.files.length, 0);
    console.log(
      `${fileCount} test files (${runs[1]?.files.length} of them again with WRITE_PATH=stream) in ${shards.length} processes side by side; each one's output follows when it ends`,
    );
    let finished = 0;
    const progress = setInterval(
      () =>
        console.log(
          `... ${Math.round((Date.now() - started) / 1000)} s, ${finished} of ${shards.length} processes done`,
        ),
      60_000,
    );
    const outcomes = await Promise.all(
      shards.map(async (shard) => {
        const outcome = await runShard(
          shard,
          envs[shard.index] as NodeJS.ProcessEnv,
          path.join(os.tmpdir(), `test-durations-${process.pid}-${shard.index}`),
        );
        finished += 1;
        process.stdout.write(outcome.log);
        return outcome;
      }),
    );
    clearInterval(progress);

    const incomplete = outcomes.filter((outcome) => outcome.incomplete).length;
    // A run that did not finish would record only the files it reached, and unbalance the next runs.
    if (record && incomplete) console.log("the durations were not recorded: the run did not finish");
    else if (record) {
      const measured = Object.assign({}, ...outcomes.map((outcome) => outcome.durations));
      const rounded = Object.fromEntries(
        Object.entries(measured)
          .sort()
          .map(([file, seconds]) => [file, Math.round(Number(seconds) * 10) / 10]),
      );
      writeFileSync(DURATIONS_FILE, `${JSON.stringify(rounded, null, 2)}\n`);
      console.log(`recorded the files' durations in ${path.relative(ROOT, DURATIONS_FILE)}`);
    }
    const total = (key: "passed" | "failed" | "skipped") =>
      outcomes.reduce((sum, outcome) => sum + outcome[key], 0);
    console.log(
      `\nall ${shards.length} test processes done in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    if (incomplete)
      console.log(`${incomplete} test process(es) ended without finishing their run: see their output above`);
    console.log(`${total("passed")} passed, ${total("failed")} failed, ${total("skipped")} skipped`);
    let failed = total("failed") > 0 || incomplete > 0;
    if (failed && !incomplete && !strict)
      failed = await failedAgainAlone(
        outcomes.flatMap((outcome) => outcome.failedFiles),
        outcomes.reduce((sum, outcome) => sum + outcome.unattributedFailures, 0),
        envs[0] as NodeJS.ProcessEnv,
      );
    process.exitCode = failed ? 1 : 0;
  } finally {
    for (const redis of redisServers) redis.kill();
  }
}

/**
 * Runs the files that had a failure again, one process, nothing beside it, and says whether a failure
 * came again. Four processes on two cores starve each other at times; a test that failed only then is
 * named, for its waits or the code's to be looked at, rather than failing the run.
 */
async function failedAgainAlone(
  failedFiles: Group[],
  unattributed: number,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  // A failure whose file is not known cannot be tried again, whatever the files that are known do.
  if (unattributed > 0 || failedFiles.length === 0) {
    console.log(
      "a failure that no test file accounts for (a root hook's) cannot be run again alone: the run fails",
    );
    return true;
  }
  // One process per set of variables, whichever process the files ran in first.
  const byVariables = new Map<string, Group>();
  for (const group of failedFiles) {
    const key = keyOf("", group.env);
    const same = byVariables.get(key);
    if (same) same.files.push(...group.files);
    else byVariables.set(key, { files: [...group.files], env: group.env });
  }
  const groups = [...byVariables.values()];
  const names = groups.flatMap((group) => group.files.map((file) => keyOf(file, group.env)));
  console.log(`\nrunning again, alone, the files with a failure: ${names.join(", ")}`);
  const again = await runShard(
    { index: 0, groups, seconds: 0 },
    env,
    path.join(os.tmpdir(), `test-durations-${process.pid}-again`),
  );
  process.stdout.write(again.log);
  console.log(`\nalone: ${again.passed} passed, ${again.failed} failed, ${again.skipped} skipped`);
  if (again.failed > 0 || again.incomplete) {
    console.log("a failure came again alone: the run fails");
    return true;
  }
  console.log(
    `no failure came again alone: the failures above came under the load of the processes side by side (${names.join(", ")}); npm test -- --strict fails on them`,
  );
  return false;
}

await main();
