import assert from "node:assert/strict";
import { createHook } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { within } from "../src/limits/time-limit.js";

/** Timers `within` made while `work` ran and did not clear (unreferenced ones included). */
async function timersLeftBy(work: () => Promise<unknown>): Promise<number> {
  const live = new Set<number>();
  const hook = createHook({
    // Only within's own: mocha sets its test's timer meanwhile.
    init: (id, type) => {
      if (type === "Timeout" && new Error().stack?.includes("time-limit.ts")) live.add(id);
    },
    destroy: (id) => live.delete(id),
  }).enable();
  try {
    await work();
    // A cleared timer's destroy hook comes on a later turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    return live.size;
  } finally {
    hook.disable();
  }
}

describe("within", () => {
  it("gives the promise's value when it comes in time, and leaves no timer behind", async () => {
    let value: string | undefined;
    const left = await timersLeftBy(async () => {
      value = await within(Promise.resolve("saved"), 60_000, "late");
    });
    assert.equal(value, "saved");
    assert.equal(left, 0);
  });

  it("gives `late` when the promise takes longer", async () => {
    const started = Date.now();
    assert.equal(await within(sleep(5_000, "saved"), 50, "late"), "late");
    assert.ok(Date.now() - started < 1_000);
  });

  it("passes on the promise's rejection", async () => {
    await assert.rejects(within(Promise.reject(new Error("refused")), 60_000, "late"), /refused/);
  });
});
