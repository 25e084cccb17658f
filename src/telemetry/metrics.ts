// The server's Prometheus metrics, in one registry of their own. Rooms and stores call the narrow
// recording functions below; each label takes values from a bounded set (event names the protocol
// defines, refusal codes, trade reasons), and the labelled children are looked up once and kept; the
// messages counted by the thousand each tick are added up in a map until a scrape (talliedCounter).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export const METRIC_PREFIX = "tileworld_";

/** The server's own registry (not prom-client's global one, which a library could write to too). */
export const metricsRegistry = new Registry();

collectDefaultMetrics({ register: metricsRegistry, prefix: METRIC_PREFIX });

/** Durations from a tenth of a millisecond to a few seconds: the tick's phases and the database's writes. */
const DURATION_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** What reports the players online: each world that runs in this process, summed at each scrape. */
const onlineSources = new Set<() => number>();

new Gauge({
  name: `${METRIC_PREFIX}players_online`,
  help: "Players in the worlds of this process.",
  registers: [metricsRegistry],
  collect() {
    let online = 0;
    for (const source of onlineSources) online += source();
    this.set(online);
  },
});

/** Counts the players `source` reports among those online until the returned function is called. */
export function reportPlayersOnline(source: () => number): () => void {
  onlineSources.add(source);
  return () => onlineSources.delete(source);
}

const tickDuration = new Histogram({
  name: `${METRIC_PREFIX}tick_duration_seconds`,
  help: "A world tick's whole length, its phases together.",
  buckets: DURATION_BUCKETS,
  registers: [metricsRegistry],
});
const tickPhaseDuration = new Histogram({
  name: `${METRIC_PREFIX}tick_phase_duration_seconds`,
  help: "A world tick's phases: the rules' (input, npcs, players, combat, skills, items), then project, persist, commit (waiting for the write) and publish.",
  labelNames: ["phase"],
  buckets: DURATION_BUCKETS,
  registers: [metricsRegistry],
});

/** A tick's phases, in milliseconds as the tick measures them. */
export function recordTick(phaseMs: Readonly<Record<string, number>>): void {
  let total = 0;
  for (const phase in phaseMs) {
    const ms = phaseMs[phase]!;
    total += ms;
    histogramChild(tickPhaseDuration, phase).observe(ms / 1000);
  }
  tickDuration.observe(total / 1000);
}

const databaseWriteDuration = new Histogram({
  name: `${METRIC_PREFIX}database_write_duration_seconds`,
  help: "The world's writes to its database (a tick's changes and departures, one transaction), by outcome.",
  labelNames: ["outcome"],
  buckets: DURATION_BUCKETS,
  registers: [metricsRegistry],
});
const tradeCommitDuration = new Histogram({
  name: `${METRIC_PREFIX}trade_commit_duration_seconds`,
  help: "A trade's swap: its database transaction, from the request to commit to its outcome.",
  labelNames: ["outcome"],
  buckets: DURATION_BUCKETS,
  registers: [metricsRegistry],
});

export type Outcome = "ok" | "failed";

export function recordDatabaseWrite(seconds: number, outcome: Outcome): void {
  histogramChild(databaseWriteDuration, outcome).observe(seconds);
}

export function recordTradeCommit(seconds: number, outcome: Outcome): void {
  histogramChild(tradeCommitDuration, outcome).observe(seconds);
}

/**
 * A counter by one label counted by the hottest paths (a message in or out, thousands a tick): its
 * counts are added up in a plain map and handed to prom-client at each scrape. prom-client's own `inc`
 * validates and hashes its labels each time, a microsecond a call.
 */
function talliedCounter(name: string, help: string, label: string): (value: string, count?: number) => void {
  const tallies = new Map<string, number>();
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [metricsRegistry],
    collect() {
      for (const [value, count] of tallies) this.labels(value).inc(count);
      tallies.clear();
    },
  });
  return (value, count = 1) => {
    tallies.set(value, (tallies.get(value) ?? 0) + count);
  };
}

const messagesIn = talliedCounter(
  `${METRIC_PREFIX}messages_in_total`,
  "Client messages received by the rooms, by event (names outside the protocol count as other).",
  "event",
);
const messagesOut = talliedCounter(
  `${METRIC_PREFIX}messages_out_total`,
  "Messages sent to clients, by event, one per recipient.",
  "event",
);

/** `event` is a name the protocol defines or OTHER_EVENT (see eventLabel in src/protocol/messages.ts). */
export function countMessageIn(event: string): void {
  messagesIn(event);
}

/** `event` is one of the server's own event names. */
export function countMessagesOut(event: string, recipients = 1): void {
  messagesOut(event, recipients);
}

const refusals = new Counter({
  name: `${METRIC_PREFIX}refusals_total`,
  help: "Client messages refused, by reason (the error code, or the tradeError reason).",
  labelNames: ["reason"],
  registers: [metricsRegistry],
});

export function countRefusal(reason: string): void {
  counterChild(refusals, reason).inc();
}

const tradesCompleted = new Counter({
  name: `${METRIC_PREFIX}trades_completed_total`,
  help: "Trades whose swap committed.",
  registers: [metricsRegistry],
});
const tradesFailed = new Counter({
  name: `${METRIC_PREFIX}trades_failed_total`,
  help: "Trades that ended without a swap, by reason (cancelled, declined, expired, commit_failed...).",
  labelNames: ["reason"],
  registers: [metricsRegistry],
});

export function countTradeCompleted(): void {
  tradesCompleted.inc();
}

export function countTradeFailed(reason: string): void {
  counterChild(tradesFailed, reason).inc();
}

const agentDecisions = new Counter({
  name: `${METRIC_PREFIX}agent_decisions_total`,
  help: "Actions the server's agents decided on, by planner.",
  labelNames: ["planner"],
  registers: [metricsRegistry],
});

export function countAgentDecision(planner: string): void {
  counterChild(agentDecisions, planner).inc();
}

/** Labelled children, kept: prom-client would otherwise sort and hash the label values at each call. */
const counterChildren = new WeakMap<Counter<string>, Map<string, Counter.Internal>>();
const histogramChildren = new WeakMap<Histogram<string>, Map<string, Histogram.Internal<string>>>();

function counterChild(metric: Counter<string>, value: string): Counter.Internal {
  return kept(counterChildren, metric, value, () => metric.labels(value));
}

function histogramChild(metric: Histogram<string>, value: string): Histogram.Internal<string> {
  return kept(histogramChildren, metric, value, () => metric.labels(value));
}

function kept<M extends object, C>(
  byMetric: WeakMap<M, Map<string, C>>,
  metric: M,
  value: string,
  make: () => C,
): C {
  let byValue = byMetric.get(metric);
  if (!byValue) {
    byValue = new Map();
    byMetric.set(metric, byValue);
  }
  let child = byValue.get(value);
  if (child === undefined) {
    child = make();
    byValue.set(value, child);
  }
  return child;
}

/** The Prometheus text of every metric, and its content type. */
export async function scrapeMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
