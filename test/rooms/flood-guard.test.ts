import assert from "node:assert/strict";
import { FLOOD_BLOCK_MS, FloodGuard, FloodGuards } from "../../src/limits/flood-guard.js";

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

describe("FloodGuards", () => {
  it("gives a player the same guard for every connection, until it has been idle for a while", () => {
    const guards = new FloodGuards(2);
    const blocked = guards.of("p1", 0);
    blocked.check(0);
    blocked.check(1);
    assert.equal(blocked.check(2), "limited");
    assert.equal(guards.of("p1", 3_000), blocked, "a new connection is still blocked");
    assert.equal(guards.of("p1", 3_000).check(3_000), "drop");
    assert.notEqual(guards.of("p2", 3_000), blocked);
    // Let go once neither blocked nor counting a message of the last second: a new one judges the same.
    const later = guards.of("p1", 2 + FLOOD_BLOCK_MS + 10_000);
    assert.notEqual(later, blocked);
    assert.equal(later.check(2 + FLOOD_BLOCK_MS + 10_000), "accept");
  });
});
