// A paced action (a bite, here) does not come sooner for logging out and in between: the paces leave
// with the character as instants, and a login in any world waits out what is left of them.
import assert from "node:assert/strict";
import { EAT_TICKS } from "../../src/game/types.js";
import type { World } from "../../src/game/world.js";
import { character, makeWorld, SPAWN } from "./world-fixture.js";

const TICK_MS = 600;

/** A world whose wall clock the test moves. */
function worldAt(clock: { now: number }): World {
  return makeWorld({ wallClock: () => clock.now, tickMs: TICK_MS });
}

/** Sends a bite, steps a tick: whether it was refused as too soon. */
function biteRefused(world: World): boolean {
  const shrimps = world.inventory("p1").find((entry) => entry.itemId === "shrimps");
  assert.ok(shrimps, "shrimps left to eat");
  assert.equal(world.submit("p1", { type: "use", inventorySlot: shrimps.slot }), undefined);
  const report = world.step();
  return report.events.some((event) => event.event === "error" && event.data.code === "too_soon");
}

describe("paces across a logout", () => {
  it("waits out, back in the same world at once, the bite it ate before leaving", () => {
    const clock = { now: 1_000_000 };
    const world = worldAt(clock);
    world.join(character("p1", { position: { ...SPAWN }, health: 1 }));
    assert.equal(biteRefused(world), false);
    const left = world.leave("p1");
    assert.ok(left.paces?.eat !== undefined && left.paces.eat > clock.now, "the next bite's instant kept");
    world.join(left);
    assert.equal(world.character("p1").paces, undefined, "taken up, not kept to be saved again");
    const refusedTicks = Array.from({ length: EAT_TICKS }, () => {
      clock.now += TICK_MS;
      return biteRefused(world);
    });
    assert.deepEqual(
      refusedTicks,
      [true, true, false],
      "one bite per 3 ticks, the relog counted for nothing",
    );
  });

  it("waits out in another world what is left of it by the clock, and nothing once it has passed", () => {
    const clock = { now: 1_000_000 };
    const first = worldAt(clock);
    first.join(character("p1", { position: { ...SPAWN }, health: 1 }));
    assert.equal(biteRefused(first), false);
    const left = first.leave("p1");

    // Another world, at a tick of its own, a tick's time later: one tick of the pace is left.
    clock.now += TICK_MS;
    const second = worldAt(clock);
    for (let tick = 0; tick < 40; tick++) second.step();
    second.join(left);
    assert.equal(biteRefused(second), true);
    assert.equal(biteRefused(second), false);
    for (let tick = 0; tick < EAT_TICKS; tick++) second.step();
    assert.equal(second.leave("p1").paces, undefined, "nothing ahead to keep once it has passed");

    const later = worldAt(clock);
    clock.now += 60_000;
    later.join(left);
    assert.equal(biteRefused(later), false, "a minute on, the old instant holds nothing back");
  });
});
