import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { LoopStalls } from "../src/tuning/loop-stalls.js";

/** Holds the event loop for `ms`, as a stopped or starved process does. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("the event loop's stall watch", () => {
  it("counts a stall as just ended for a few of its turns, however slowly a busy machine turns them", async () => {
    const stalls = new LoopStalls(200, 50);
    try {
      await sleep(120);
      holdLoop(500);
      await sleep(1); // the watch's turn that counts the stall
      // Then turns slower than the stall limit, but none long enough to be a stall itself.
      holdLoop(150);
      await sleep(1);
      holdLoop(150);
      const mark = stalls.mark();
      assert.ok(
        mark.waitedMs >= 500,
        `a login read now may have waited through the stall (${mark.waitedMs} ms)`,
      );
      assert.ok(stalls.stalledFor(mark) >= 500);
      // A few ordinary turns later, what is read has not waited.
      const deadline = Date.now() + 5000;
      while (stalls.mark().waitedMs > 0 && Date.now() < deadline) await sleep(50);
      assert.equal(stalls.mark().waitedMs, 0, "the stall is over");
    } finally {
      stalls.stop();
    }
  });
});
