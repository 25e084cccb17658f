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

  it("counts over any one second: a message is over when the limit-th one before it is less than 1000 ms old", () => {
    const guard = new FloodGuard(2);
    assert.equal(guard.check(0), "accept");
    assert.equal(guard.check(900), "accept");
    assert.equal(guard.check(1000), "accept");
    assert.equal(guard.check(1500), "limited");
  });

  it("lets a steady sender at the limit through indefinitely", () => {
    const guard = new FloodGuard(3);
    for (let t = 0; t < 10_000; t += 334) assert.equal(guard.check(t), "accept", `at ${t} ms`);
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
