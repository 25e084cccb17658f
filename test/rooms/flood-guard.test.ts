import assert from "node:assert/strict";
import { FLOOD_BLOCK_MS, FloodGuard } from "../../src/rooms/flood-guard.js";

describe("FloodGuard", () => {
  it("accepts up to the limit within a second, then blocks for the block length", () => {
    const guard = new FloodGuard(3);
    assert.deepEqual(
      [0, 10, 20].map((t) => guard.check(t)),
      ["accept", "accept", "accept"],
    );
    assert.equal(guard.check(30), "limited");
    assert.equal(guard.check(500), "drop");
    assert.equal(guard.check(30 + FLOOD_BLOCK_MS), "accept");
  });

  it("starts a new window each second", () => {
    const guard = new FloodGuard(2);
    assert.equal(guard.check(0), "accept");
    assert.equal(guard.check(900), "accept");
    assert.equal(guard.check(1000), "accept");
    assert.equal(guard.check(1500), "accept");
  });

  it("closes a sender that keeps flooding through its block", () => {
    const guard = new FloodGuard(2);
    guard.check(0);
    guard.check(1);
    assert.equal(guard.check(2), "limited");
    assert.equal(guard.check(3), "drop");
    assert.equal(guard.check(4), "drop");
    assert.equal(guard.check(5), "close");
  });
});
