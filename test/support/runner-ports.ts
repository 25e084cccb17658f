// The ports of the test processes, as offsets from each one's TEST_PORT: those the test runner
// (scripts/test.ts) takes itself and those the tests' server processes take, which the runner checks
// before it starts (test/test-ports.test.ts checks that they do not collide).

/** Ports a test process's tests may use run from its TEST_PORT up to below this. */
export const PORTS_PER_PROCESS = 100;
/** The Redis server of its own that a test process after the first is given listens here. */
export const REDIS_PORT_OFFSET = 97;
/** TEST_PORT where none is given: the first test process's; each further one's is PORTS_PER_PROCESS on. */
export const DEFAULT_TEST_PORT = 2568;
/** The most test processes the runner starts unless TEST_PROCESSES says otherwise. */
export const MAX_TEST_PROCESSES = 4;

/**
 * Ports of the server processes a test process's tests start, offsets from its TEST_PORT (`base`) as
 * the test servers' own port is, so checkouts run side by side with different TEST_PORT values do not
 * collide. They keep off the runner's own ports (above).
 */
export function processPorts(base: number) {
  return {
    /** test/process.test.ts */
    process: base + 33,
    /** test/scale/two-processes.test.ts: the first two processes, a newcomer and two replacements */
    scale: [base + 53, base + 54, base + 55, base + 56, base + 57],
    /** test/scale/development-defaults.test.ts (with TEST_PORT 3600, +59 would be 3659: fetch refuses that port) */
    developmentDefaults: [base + 60, base + 61],
    /** test/scale/trade-storm.test.ts */
    tradeStorm: base + 63,
    /** test/scale/database-faults.test.ts */
    databaseFaults: base + 45,
    /** test/scale/database-faults.test.ts: the server whose database stalls as it shuts down */
    databaseStall: base + 48,
    /** test/scale/redis-restart.test.ts, and the Redis of its own it restarts */
    redisRestart: { server: base + 65, redis: base + 73 },
    /** test/scale/worlds.test.ts: two processes holding a numbered world each, and one given another's address */
    worlds: [base + 36, base + 37, base + 44],
    /** test/scale/agent-process-worlds.test.ts: two game server processes and the agent process */
    agentProcessWorlds: { servers: [base + 40, base + 41], agents: base + 42 },
    /** test/scale/redis-partition.test.ts: the process cut off from Redis, and the one that is not */
    redisPartition: [base + 46, base + 47],
    /** test/logs.test.ts */
    logs: base + 34,
    /** test/agents/framework.test.ts: the agent process (`npm run agents`) */
    agentFramework: base + 35,
    /** test/agents/exam.test.ts: two exams side by side */
    exams: [base + 38, base + 39],
    /** test/scale/redis-outage.test.ts, and the Redis of its own it kills */
    redisOutage: { server: base + 66, redis: base + 74 },
    /** test/scale/redis-driver-lookups.test.ts: the Redis it starts late */
    redisDriverLookups: { redis: base + 75 },
    /** test/scale/hop-address.test.ts, hop-frames.test.ts, hop-expired-token.test.ts: two processes each */
    hopAddress: [base + 90, base + 91],
    hopFrames: [base + 92, base + 93],
    hopExpiredToken: [base + 94, base + 95],
    /** test/scale/database-claim.test.ts: two processes on one database, without Redis */
    databaseClaim: [base + 81, base + 82],
    /** test/scale/world-release-fencing.test.ts: world 1's process, world 2's, and their Redis */
    worldRelease: { servers: [base + 83, base + 84], redis: base + 85 },
    /** test/scale/world-pair-faults.test.ts: a pair of world processes and their Redis, for each case */
    listingsLost: { servers: [base + 86, base + 87], redis: base + 88 } as const,
    relayStalled: { servers: [base + 77, base + 78], redis: base + 79 } as const,
    hopsBetween: { servers: [base + 49, base + 50], redis: base + 51 } as const,
    /** test/agents/agent-process-restart.test.ts: the game server it kills and starts again, and the agent process */
    agentProcessRestart: { server: base + 43, agents: base + 52 },
    /** test/scale/frozen-login.test.ts: the world's process, the one it stops, and their Redis */
    frozenLogin: { world: base + 67, stopped: base + 68, redis: base + 76 },
  } as const;
}

/** The ports fetch refuses to reach (the Fetch standard's "bad ports"): a server on one is never healthy. */
const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Every port a value of processPorts names, with where it is named. */
export function portsOf(value: unknown, where = ""): [string, number][] {
  if (typeof value === "number") return [[where, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => portsOf(item, `${where}[${index}]`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([key, item]) => portsOf(item, where ? `${where}.${key}` : key));
  return [];
}

/**
 * The ports `processes` test processes from `firstPort` on would take that fetch refuses, each said as
 * "test process N: what on port P".
 */
export function refusedPorts(firstPort: number, processes: number): string[] {
  const refused: string[] = [];
  for (let index = 0; index < processes; index++) {
    const base = firstPort + index * PORTS_PER_PROCESS;
    const taken: [string, number][] = [
      ["the test server", base],
      ["the runner's Redis", base + REDIS_PORT_OFFSET],
      ...portsOf(processPorts(base)),
    ];
    for (const [where, port] of taken)
      if (FETCH_BAD_PORTS.has(port)) refused.push(`test process ${index + 1}: ${where} on port ${port}`);
  }
  return refused;
}
