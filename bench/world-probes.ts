// The probes of bench/world.ts in a process of their own (its child, on the bots' core): each steps a
// tile at a time and times the world:update that shows it there. In the bots' process they would read
// their updates behind the thousands of other bots' (that process's loop lagged 150 ms at p99 with 2,000
// of them), which a player's own machine does not; here, only the core is shared.
// Talks to the parent over IPC: `start` (joins and places them) → `placed`; `measure`; `stop` → `samples`.
import "../src/config/quiet-env-files.js";
import { Bot, type BotOptions, type ProbeSample, probes } from "./world-bots.js";

export type ToProbes =
  | { type: "start"; options: Omit<BotOptions, "probe">; indexes: number[] }
  | { type: "measure" }
  | { type: "stop" };

export type FromProbes = { type: "placed"; placed: number } | { type: "samples"; samples: ProbeSample[] };

/** How often the probes act (as the bots' loop does), and how long they may take to join and to reach their spot. */
const ACT_EVERY_MS = 100;
const JOIN_TIMEOUT_MS = 60_000;
const PLACEMENT_TIMEOUT_MS = 120_000;

function tell(message: FromProbes, then?: () => void): void {
  process.send?.(message, undefined, {}, () => then?.());
}

async function start(options: Omit<BotOptions, "probe">, indexes: number[]): Promise<Bot[]> {
  // A join that never answers would otherwise hold the bench before it measures, saying nothing.
  const bots = await Promise.all(
    indexes.map(
      (index) =>
        new Promise<Bot>((resolve, reject) => {
          const late = setTimeout(
            () => reject(new Error(`probe ${index} did not join within ${JOIN_TIMEOUT_MS / 1000} s`)),
            JOIN_TIMEOUT_MS,
          );
          new Bot(
            index,
            { ...options, probe: true },
            (bot) => {
              clearTimeout(late);
              resolve(bot);
            },
            reject,
          );
        }),
    ),
  );
  const deadline = Date.now() + PLACEMENT_TIMEOUT_MS;
  while (bots.some((bot) => !bot.arrived) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 250));
  setInterval(() => {
    const now = Date.now();
    for (const bot of bots) bot.act(now);
  }, ACT_EVERY_MS);
  return bots;
}

let bots: Bot[] = [];
process.on("message", (message: ToProbes) => {
  if (message.type === "start")
    start(message.options, message.indexes).then(
      (started) => {
        bots = started;
        tell({ type: "placed", placed: bots.filter((bot) => bot.arrived).length });
      },
      (error: unknown) => {
        console.error("the probes could not join:", error);
        process.exit(1);
      },
    );
  else if (message.type === "measure") probes.recording = true;
  else if (message.type === "stop") {
    probes.recording = false;
    for (const bot of bots) bot.close();
    tell({ type: "samples", samples: probes.samples }, () => process.exit(0));
  }
});
