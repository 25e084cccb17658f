import assert from "node:assert/strict";
import { ProviderPause } from "../../src/agents/planners/provider-pause.js";

describe("a model provider's asked wait (ProviderPause)", () => {
  const now = Date.parse("2026-11-30T12:00:00Z");
  const status = (code: number, headers: Record<string, string> = {}) =>
    ({ kind: "status", status: code, headers }) as const;

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
      pause.ended(status(429, headers), now);
      assert.equal(pause.left(now), wait, JSON.stringify(headers));
    }
  });

  it("waits for a rate limit or an overload, at most 10 minutes, never less than asked before", () => {
    const pause = new ProviderPause();
    pause.ended(status(500, { "retry-after": "30" }), now);
    assert.equal(pause.left(now), 0, "a server error asks no wait");
    pause.ended(status(503, { "retry-after": "86400" }), now);
    assert.equal(pause.left(now), 600_000);
    pause.ended(status(529, { "retry-after": "1" }), now);
    assert.equal(pause.left(now), 600_000, "a shorter wait does not cut the longer one");
    assert.equal(pause.left(now + 600_000), 0);
  });

  it("rests a provider that refuses the key or the model, longer each time, until it answers", () => {
    const pause = new ProviderPause();
    const waits = [401, 404, 403].map((code, nth) => {
      const at = now + nth * 3_600_000;
      pause.ended(status(code), at);
      return pause.left(at);
    });
    assert.deepEqual(waits, [30_000, 60_000, 120_000]);
    pause.ended({ kind: "answered" }, now + 4 * 3_600_000);
    pause.ended(status(401), now + 5 * 3_600_000);
    assert.equal(pause.left(now + 5 * 3_600_000), 30_000, "from the first wait again");
    const fresh = new ProviderPause();
    fresh.ended(status(400), now);
    assert.equal(fresh.left(now), 0, "a bad request may be this call's alone");
  });

  it("rests a provider that does not answer from its second silent call in a row", () => {
    const pause = new ProviderPause();
    pause.ended({ kind: "silent" }, now);
    assert.equal(pause.left(now), 0, "one timeout may be bad luck");
    pause.ended({ kind: "silent" }, now);
    assert.equal(pause.left(now), 10_000);
    pause.ended({ kind: "silent" }, now + 10_000);
    assert.equal(pause.left(now + 10_000), 20_000);
    pause.ended({ kind: "answered" }, now + 60_000);
    pause.ended({ kind: "silent" }, now + 60_000);
    assert.equal(pause.left(now + 60_000), 0, "counted afresh after an answer");
  });
});
