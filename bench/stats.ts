import type { IntervalHistogram } from "node:perf_hooks";

// Percentiles, a terminal progress bar and the messages between bench/world.ts and its server.

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Nearest-rank percentiles: p99 is the smallest sample that at least 99% of them do not exceed. Below
 * 100 samples that is the largest one: a p99 worth the name needs a few hundred.
 */
export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? 0;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/** Event-loop lag from a histogram sampled every `resolutionMs`: the delay beyond that interval. */
export function loopLag(histogram: IntervalHistogram, resolutionMs: number): Percentiles {
  const lag = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - resolutionMs);
  return {
    count: histogram.count,
    p50: lag(histogram.percentile(50)),
    p99: lag(histogram.percentile(99)),
    max: lag(histogram.max),
  };
}

/** Redraws one line on stderr: `label [#####.....] done/total suffix`. */
export function progress(label: string, done: number, total: number, suffix = ""): void {
  if (!process.stderr.isTTY && done < total) return;
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const bar = `${"#".repeat(filled)}${".".repeat(width - filled)}`;
  process.stderr.write(`\r${label.padEnd(12)} [${bar}] ${done}/${total} ${suffix}`.padEnd(90));
  if (done >= total) process.stderr.write("\n");
}

export interface MemorySample {
  heapUsed: number;
  rss: number;
}

/** What the bench server reports at the end of a measurement. */
export interface ServerReport {
  ticks: number;
  /** Per stage of the room's tick, in milliseconds. */
  stages: Record<string, Percentiles>;
  eventLoopLagMs: Percentiles;
  /** Garbage-collection pauses while measuring, and their total. */
  gcPauseMs: Percentiles & { total: number };
  /** Those of them that began inside a tick's timed stages. */
  gcInTicksMs: Percentiles & { total: number };
  /** When each measured tick's world step began, by tick (wall clock: performance.timeOrigin + now). */
  tickStartedAt: Record<number, number>;
  /** The reference work timed again once the measuring is over: a busy host's speed moves meanwhile. */
  referenceAfterMs: number;
}

export type ToServer = { type: "memory" } | { type: "measure" } | { type: "report" } | { type: "shutdown" };
export type FromServer =
  | { type: "ready"; port: number; referenceMs: number }
  | { type: "memory"; memory: MemorySample }
  | { type: "report"; report: ServerReport };
