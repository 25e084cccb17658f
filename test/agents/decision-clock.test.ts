import assert from "node:assert/strict";
import { DecisionClock } from "../../src/agents/decision-clock.js";

describe("when an agent decides (DecisionClock)", () => {
  it("decides every few world ticks, and at once in a world whose count starts again", () => {
    const decided: number[] = [];
    let now = 0;
    const clock = new DecisionClock(3, 600, () => decided.push(now));
    for (now = 190; now <= 196; now++) clock.tick(now);
    assert.deepEqual(decided, [190, 193, 196]);
    // The world restarted (or reopened elsewhere): its ticks count from 0 again.
    decided.length = 0;
    for (now = 1; now <= 7; now++) clock.tick(now);
    assert.deepEqual(decided, [1, 4, 7], "not idle until the new count passes 196");
  });

  it("decides on quiet ticks in a world whose count starts again", () => {
    const decided: number[] = [];
    let now = 0;
    const clock = new DecisionClock(3, 600, () => decided.push(now));
    clock.paceByTicks();
    for (now = 100; now <= 110; now += 5) clock.quiet(now);
    decided.length = 0;
    for (now = 1; now <= 6; now += 5) clock.quiet(now);
    assert.deepEqual(decided, [1, 6]);
  });
});
