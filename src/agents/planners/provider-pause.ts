// A model provider that answers 429 (rate limited) or 503/529 (overloaded) says when to come back,
// in `retry-after` (seconds or an HTTP date) or `retry-after-ms`. Its limit is the key's, shared by
// every agent that uses it: until then none of them asks, and their rules decide. A provider that
// refuses the key or the model, or that does not answer at all, is given a rest the same way.

/** Statuses that ask the caller to wait, rather than report a broken request. */
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503, 529]);
/** The wait when the provider names none. */
const DEFAULT_WAIT_MS = 10_000;
/** The longest wait taken from a provider: past it, its own limit decides again. */
const LONGEST_WAIT_MS = 10 * 60_000;

/**
 * Statuses that say the key or the model is wrong (refused, forbidden, no such model): every call would
 * fail alike until the operator fixes a setting, so calls pause, longer after each in a row.
 */
const BROKEN_STATUSES: ReadonlySet<number> = new Set([401, 403, 404]);
/** The first pause after a broken answer, doubled after each in a row. */
const FIRST_BROKEN_WAIT_MS = 30_000;
/**
 * Calls in a row that time out or cannot reach the provider before calls pause: each of them held an
 * agent's decision for the whole timeout, and a provider that hangs would hold every agent's so.
 */
const SILENT_CALLS_BEFORE_PAUSE = 2;
/** The first pause after silent calls, doubled after each silent call that follows it. */
const FIRST_SILENT_WAIT_MS = 10_000;

/** How a call to the provider ended, for the pause. */
export type CallOutcome =
  | { kind: "answered" }
  | { kind: "status"; status: number; headers: Record<string, string> | undefined }
  | { kind: "silent" };

export class ProviderPause {
  private until = 0;
  /** Broken answers and silent calls in a row, each since the last answer. */
  private broken = 0;
  private silent = 0;

  /** How long callers must still wait (0: they may ask). */
  left(now = Date.now()): number {
    return Math.max(0, this.until - now);
  }

  /** A call ended: an answer ends the streaks; a failure may pause every caller for a while. */
  ended(outcome: CallOutcome, now = Date.now()): void {
    if (outcome.kind === "answered") {
      this.broken = 0;
      this.silent = 0;
    } else if (outcome.kind === "silent") {
      this.silent++;
      if (this.silent >= SILENT_CALLS_BEFORE_PAUSE)
        this.pauseFor(growing(FIRST_SILENT_WAIT_MS, this.silent - SILENT_CALLS_BEFORE_PAUSE), now);
    } else if (WAIT_STATUSES.has(outcome.status)) {
      this.pauseFor(requestedWaitMs(outcome.headers, now) ?? DEFAULT_WAIT_MS, now);
    } else if (BROKEN_STATUSES.has(outcome.status)) {
      this.pauseFor(growing(FIRST_BROKEN_WAIT_MS, this.broken++), now);
    }
  }

  private pauseFor(waitMs: number, now: number): void {
    this.until = Math.max(this.until, now + Math.min(waitMs, LONGEST_WAIT_MS));
  }
}

/** `first`, doubled `times` times (capped by the longest wait). */
function growing(first: number, times: number): number {
  return first * 2 ** Math.min(times, 10);
}

/** The wait a provider's answer asks for, from its headers (any case), or undefined. */
function requestedWaitMs(headers: Record<string, string> | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const header = (name: string) =>
    Object.entries(headers)
      .find(([key]) => key.toLowerCase() === name)?.[1]
      ?.trim();
  const inMs = header("retry-after-ms");
  if (inMs && Number.isFinite(Number(inMs)) && Number(inMs) >= 0) return Number(inMs);
  const after = header("retry-after");
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
