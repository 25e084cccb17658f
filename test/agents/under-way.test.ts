import assert from "node:assert/strict";
import { UnderWay, WALK_STALL_MS } from "../../src/agents/under-way.js";
import type { WorldEntity } from "../../src/game/world-types.js";

const SELF = "me";

/** What the agent sees: itself standing at `x`, `z`. */
function standingAt(x: number, z: number): Map<string, WorldEntity> {
  const self = { id: SELF, kind: "player", type: "player", name: "Me", position: { x, z } } as WorldEntity;
  return new Map([[SELF, self]]);
}

const move = (x: number, z: number) => ({ event: "player:move", data: { x, z } });

describe("what an agent has under way (UnderWay)", () => {
  let now = 0;
  const clock = () => now;

  it("names a walk under way until the agent stands where that walk was sent, not an earlier one", () => {
    const work = new UnderWay(clock);
    work.sent(move(40, 40), "moveTo");
    work.sent({ event: "player:action", data: { action: "stop" } }, "stopMovement");
    assert.equal(work.action(standingAt(35, 40), SELF), null, "stopped: nothing under way");
    // The rules' own walk (to the bank, say) ends where it was sent.
    work.sent(move(30, 26));
    assert.equal(work.action(standingAt(32, 30), SELF), "moveTo");
    assert.equal(work.action(standingAt(30, 26), SELF), null);
  });

  it("ends a walk the world refused, and one during which the agent stood still", () => {
    const work = new UnderWay(clock);
    work.sent(move(40, 40), "moveTo");
    work.refused("player:move");
    assert.equal(work.action(standingAt(35, 40), SELF), null, "refused: over");

    now = 0;
    work.sent(move(40, 40), "moveTo");
    assert.equal(work.action(standingAt(35, 40), SELF), "moveTo");
    now = WALK_STALL_MS - 1;
    assert.equal(work.action(standingAt(36, 40), SELF), "moveTo", "it moved meanwhile");
    now += WALK_STALL_MS - 1;
    assert.equal(work.action(standingAt(36, 40), SELF), "moveTo", "still for less than the stall");
    now += 1;
    assert.equal(work.action(standingAt(36, 40), SELF), null, "still too long (it died, or was stopped)");
  });

  it("leaves a walk under way when the world refuses something else (a bite during the walk)", () => {
    const work = new UnderWay(clock);
    work.sent(move(40, 40), "moveTo");
    work.refused("inventory:use");
    assert.equal(work.action(standingAt(35, 40), SELF), "moveTo");
  });
});
