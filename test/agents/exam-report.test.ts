import assert from "node:assert/strict";
import { examTable, ProgressWatch, xpPerHour } from "../../bench/agents-exam-report.js";

describe("the agents exam's report", () => {
  it("counts as stuck only the ticks past 30 s of game time without XP", () => {
    const watch = new ProgressWatch();
    watch.observe(0, 100);
    // 50 ticks (30 s) without a gain are not stuck yet; the next 20 are.
    watch.observe(40, 100);
    watch.observe(70, 100);
    assert.equal(watch.stuckTicks, 20);
    // A gain at tick 80: ticks 71..79 were stuck, and the count starts again from there.
    watch.observe(80, 110);
    assert.equal(watch.stuckTicks, 29);
    watch.observe(130, 110);
    watch.observe(130, 110);
    assert.equal(watch.stuckTicks, 29);
    watch.observe(135, 110);
    assert.equal(watch.stuckTicks, 34);
  });

  it("gives XP per hour of game time, a tick being 0.6 s", () => {
    // 2,000 ticks are 20 minutes: 600 XP in them is 1,800 an hour.
    assert.equal(xpPerHour(600, 2000), 1800);
    assert.equal(xpPerHour(10, 0), 0);
  });

  it("prints a row per agent and a column per skill trained", () => {
    const table = examTable(
      [
        {
          name: "Fighter",
          goal: "combat",
          xpGained: { attack: 300, strength: 0, woodcutting: 0 },
          goalXp: 300,
          deaths: 1,
          stuckTicks: 100,
          refused: 2,
          goalReachedAtTick: undefined,
          stuckBeforeGoalTicks: undefined,
        },
        {
          name: "Chopper",
          goal: "woodcutting",
          xpGained: { woodcutting: 500 },
          goalXp: 500,
          deaths: 0,
          stuckTicks: 0,
          refused: 0,
          goalReachedAtTick: 400,
          stuckBeforeGoalTicks: 20,
        },
      ],
      2000,
    );
    const [header, , fighter, chopper] = table.split("\n").map((line) => line.split(/\s{2,}/));
    assert.deepEqual(header, [
      "agent",
      "goal",
      "goal XP",
      "attack XP/h",
      "woodcutting XP/h",
      "deaths",
      "stuck",
      "refused",
      "goal reached",
      "stuck till goal",
    ]);
    assert.deepEqual(fighter, ["Fighter", "combat", "300", "900", "0", "1", "5.0 %", "2", "no", "-"]);
    assert.deepEqual(chopper, [
      "Chopper",
      "woodcutting",
      "500",
      "0",
      "1500",
      "0",
      "0.0 %",
      "0",
      "tick 400",
      "5.0 %",
    ]);
  });
});
