import assert from "node:assert/strict";
import { ProviderPause } from "../../src/agents/planners/provider-pause.js";

describe("a model provider's asked wait (ProviderPause)", () => {
  const now = Date.parse("2026-11-30T12:00:00Z");

  it("waits what retry-after-ms or retry-after (seconds or an HTTP date) asks, in any case", () => {
    const cases: [Record<string, string>, number][] = [
      [{ "retry-after-ms": "1500" }, 1500],
      [{ "Retry-After": "20" }, 20_000],
      [{ "retry-after": new Date(now + 45_000).toUTCString() }, 45_000],
      [{ "retry-after": "soon" }, 10_000],
      [{}, 10_000],
    ];
    for (const [headers, wait] of cases) {
      const pause = new ProviderPause();
      pause.failed(429, headers, now);
      assert.equal(pause.left(now), wait, JSON.stringify(headers));
    }
  });

  it("waits only for a rate limit or an overload, at most 10 minutes, never less than asked before", () => {
    const pause = new ProviderPause();
    pause.failed(500, { "retry-after": "30" }, now);
    assert.equal(pause.left(now), 0, "a server error asks no wait");
    pause.failed(503, { "retry-after": "86400" }, now);
    assert.equal(pause.left(now), 600_000);
    pause.failed(529, { "retry-after": "1" }, now);
    assert.equal(pause.left(now), 600_000, "a shorter wait does not cut the longer one");
    assert.equal(pause.left(now + 600_000), 0);
  });
});
