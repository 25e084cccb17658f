import assert from "node:assert/strict";
import { playSession, SdkWorld } from "../support/sdk-world.js";

describe("StateViewSharing: SDK clients that hold the same entities read one view", () => {
  it("leaves every SDK client holding what a view of its own leaves it holding", function () {
    // 400 publishes, each checked client by client: 6 s on a quiet machine, four times that on a busy one.
    this.timeout(60_000);
    // Players gathered in a few cells, published as the room publishes; connections drop and come back.
    // SdkWorld checks each client against a /ws client of its player after every publish.
    const session = { seed: 5, width: 35, depth: 25, ticks: 200, moves: 0.15, drops: true };
    const shared = new SdkWorld({ share: true });
    const own = new SdkWorld({ share: false });
    playSession(shared, session);
    playSession(own, session);
    assert.ok(shared.mostOnOneView >= 5, `at most ${shared.mostOnOneView} clients read one view`);
    assert.equal(own.mostOnOneView, 1);
    assert.deepEqual([...shared.clients.keys()], [...own.clients.keys()]);
    for (const id of shared.clients.keys()) assert.deepEqual(shared.held(id), own.held(id), id);
    assert.ok(shared.clients.size > 20);
  });

  it("sends the clients of one view the same patch, made once", () => {
    const sdk = new SdkWorld();
    for (let i = 0; i < 6; i++) sdk.join(`p${i}`, 5 + i, 5);
    for (let tick = 0; tick < 3; tick++) sdk.step();
    sdk.world.submit("p0", { type: "move", x: 3, z: 5 });
    sdk.step();
    const last = [...sdk.lastSent.values()];
    assert.ok(sdk.mostOnOneView >= 5, `at most ${sdk.mostOnOneView} clients read one view`);
    assert.ok(last.filter((frame) => frame === last[1]).length >= 4, "the patch is one buffer");
  });
});
