import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { LoopStalls } from "../src/tuning/loop-stalls.js";

/** Holds the event loop for `ms`. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * A process's CPU clock, and a way to hold the loop as a stopped process stands: for exactly `ms` without
 * its CPU time growing. Otherwise its clock runs with the wall clock, as a process's does while it runs:
 * a loaded machine that starves the test's own process (a real stall, of a length no test can choose)
 * does not add to the stalls the test makes.
 */
function stoppableProcess(): { cpuMs: () => number; stop: (ms: number) => void } {
  let notRun = 0;
  return {
    cpuMs: () => performance.now() - notRun,
    stop: (ms) => {
      holdLoop(ms);
      notRun += ms;
    },
  };
}

describe("the event loop's stall watch", () => {
  it("counts a stall as just ended for a few of its turns, however slowly a busy machine turns them", async () => {
    const { cpuMs, stop } = stoppableProcess();
    const stalls = new LoopStalls(200, 50, cpuMs);
    try {
      await sleep(120);
      stop(500);
      await sleep(1); // the watch's turn that counts the stall
      // Then turns slower than the stall limit, but none long enough to be a stall itself.
      stop(150);
      await sleep(1);
      stop(150);
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

  it("counts no stall while the process works on its own thread (a long query of the embedded database)", async () => {
    // Its CPU clock runs with the wall clock, as a process's does while it runs (a real one would lose
    // time to the other processes of a loaded machine, which counts as not running).
    const stalls = new LoopStalls(200, 50, () => performance.now());
    try {
      await sleep(120);
      holdLoop(600);
      const mark = stalls.mark();
      await sleep(120);
      assert.equal(stalls.stalledFor(mark), 0, "a login read after it waited for work, not for a stop");
    } finally {
      stalls.stop();
    }
  });
});
