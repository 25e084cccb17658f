import assert from "node:assert/strict";
import { FullCollections } from "../../src/rooms/tick-garbage.js";

describe("FullCollections: the old generation collected between ticks", () => {
  /** A heap whose size the test sets; a full collection brings it down to `live`. */
  function heap(start: number) {
    const fake = { used: start, live: start, collections: 0 };
    const policy = new FullCollections(
      () => fake.used,
      () => {
        fake.collections++;
        fake.used = fake.live;
      },
      0.5,
    );
    return { fake, policy };
  }

  it("collects once the heap has grown by half since its last full collection, then measures from there", () => {
    const { fake, policy } = heap(100);
    policy.afterTick();
    fake.used = 150;
    policy.afterTick();
    assert.equal(fake.collections, 0);
    fake.used = 151;
    fake.live = 120;
    policy.afterTick();
    assert.equal(fake.collections, 1);
    // Measured from what that collection left (120), not from the first size seen.
    fake.used = 170;
    policy.afterTick();
    assert.equal(fake.collections, 1);
    fake.used = 181;
    policy.afterTick();
    assert.equal(fake.collections, 2);
  });

  it("measures from a collection V8 made on its own, seen as the heap shrinking", () => {
    const { fake, policy } = heap(100);
    policy.afterTick();
    fake.used = 60;
    policy.afterTick();
    fake.used = 140;
    fake.live = 60;
    policy.afterTick();
    // 140 is less than half again as much as 100, the stale size, but more than 60's.
    assert.equal(fake.collections, 1);
  });
});
