// A model provider that answers 429 (rate limited) or 503/529 (overloaded) says when to come back,
// in `retry-after` (seconds or an HTTP date) or `retry-after-ms`. Its limit is the key's, shared by
// every agent that uses it: until then none of them asks, and their rules decide.

/** Statuses that ask the caller to wait, rather than report a broken request. */
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503, 529]);
/** The wait when the provider names none. */
const DEFAULT_WAIT_MS = 10_000;
/** The longest wait taken from a provider: past it, its own limit decides again. */
const LONGEST_WAIT_MS = 10 * 60_000;

export class ProviderPause {
  private until = 0;

  /** How long callers must still wait (0: they may ask). */
  left(now = Date.now()): number {
    return Math.max(0, this.until - now);
  }

  /** A call failed with `status`: when it asks the caller to wait, no call goes until then. */
  failed(status: number | undefined, headers: Record<string, string> | undefined, now = Date.now()): void {
    if (status === undefined || !WAIT_STATUSES.has(status)) return;
    const wait = Math.min(requestedWaitMs(headers, now) ?? DEFAULT_WAIT_MS, LONGEST_WAIT_MS);
    this.until = Math.max(this.until, now + wait);
  }
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
