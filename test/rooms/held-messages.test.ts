// The order of a client's messages that came behind one answered asynchronously (an /admin attempt).
import assert from "node:assert/strict";
import { HeldMessages } from "../../src/rooms/held-messages.js";

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("HeldMessages", () => {
  it("handles the messages behind a pending answer once it comes, in the order they came; others' at once", async () => {
    const failures: unknown[] = [];
    const held = new HeldMessages<object>((error) => failures.push(error));
    const alice = {};
    const bob = {};
    const handled: string[] = [];
    const admin = deferred();
    held.handle(alice, () => handled.push("a1"));
    held.holdUntil(alice, admin.promise);
    held.handle(alice, () => handled.push("a2"));
    held.handle(bob, () => handled.push("b1"));
    held.handle(alice, () => handled.push("a3"));
    await settled();
    assert.deepEqual(handled, ["a1", "b1"]);
    admin.resolve();
    await settled();
    assert.deepEqual(handled, ["a1", "b1", "a2", "a3"]);
    held.handle(alice, () => handled.push("a4"));
    assert.deepEqual(handled.at(-1), "a4", "nothing held any more");
    assert.deepEqual(failures, []);
  });

  it("holds the rest again behind a second pending answer among them, and lets go after a failed one", async () => {
    const failures: unknown[] = [];
    const held = new HeldMessages<object>((error) => failures.push(error));
    const alice = {};
    const handled: string[] = [];
    const first = deferred();
    const second = deferred();
    held.holdUntil(alice, first.promise);
    held.handle(alice, () => {
      handled.push("a1");
      held.holdUntil(alice, second.promise);
    });
    held.handle(alice, () => handled.push("a2"));
    first.resolve();
    await settled();
    assert.deepEqual(handled, ["a1"], "a2 waits for the second answer");
    held.handle(alice, () => handled.push("a3"));
    second.reject(new Error("database down"));
    await settled();
    assert.deepEqual(handled, ["a1", "a2", "a3"]);
    assert.equal((failures[0] as Error).message, "database down");
  });
});
