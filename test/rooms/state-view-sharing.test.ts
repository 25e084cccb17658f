import assert from "node:assert/strict";
import { $changes } from "@colyseus/schema";
import { playSession, SdkWorld, sameFrames } from "../support/sdk-world.js";

describe("StateViewSharing: SDK clients that hold the same entities read one StateView", () => {
  it("sends every SDK client the very bytes a StateView of its own sends it", () => {
    // Players gathered in a few cells, published as the room publishes; connections drop and come back.
    const session = { seed: 5, width: 35, depth: 25, ticks: 200, moves: 0.15, drops: true };
    const shared = new SdkWorld({ share: true });
    const own = new SdkWorld({ share: false });
    playSession(shared, session);
    playSession(own, session);
    assert.ok(shared.mostOnOneView >= 5, `at most ${shared.mostOnOneView} clients read one view`);
    assert.equal(own.mostOnOneView, 1);
    const compared = sameFrames(shared, own);
    assert.ok(compared > 4000, `only ${compared} frames were compared`);
  });

  it("lets go of everything a closed client's view showed, shared or not", () => {
    const sdk = new SdkWorld();
    for (let i = 0; i < 6; i++) sdk.join(`p${i}`, 5 + i, 5);
    for (let tick = 0; tick < 3; tick++) sdk.step();
    const views = new Set([...sdk.clients.values()].map((client) => client.view!));
    assert.ok(views.size < 6, "the clients of one cell share a view");
    const trees = [...sdk.state.entities.values()].map((entity) => entity[$changes]!);
    assert.ok([...views].every((view) => trees.some((tree) => view.isVisible(tree))));
    for (const id of [...sdk.clients.keys()]) sdk.leave(id);
    for (const view of views) assert.ok(trees.every((tree) => !view.isVisible(tree)));
  });
});
