import assert from "node:assert/strict";
import { playSession, SdkWorld } from "../support/sdk-world.js";

// After every publish, each joined SDK client's state, decoded as the SDK decodes it, is checked against
// what a /ws client of the same player holds (SdkWorld.step): the same entities, field for field.
describe("StatePatches: SDK clients' decoded state", () => {
  it("holds what a /ws client of the same player holds, through moves, teleports, drops and leaves", () => {
    const sdk = new SdkWorld();
    playSession(sdk, { seed: 11, width: 55, depth: 45, ticks: 150, moves: 0.3 });
    assert.ok(sdk.frames.size > 40);
  });

  it("does so when views miss a tick's update and publishes follow two ticks", () => {
    const sdk = new SdkWorld();
    playSession(sdk, { seed: 12, width: 55, depth: 45, ticks: 150, moves: 0.3, missedUpdates: true });
  });

  it("does so through dropped connections that come back, in a few crowded cells", () => {
    const sdk = new SdkWorld();
    playSession(sdk, { seed: 13, width: 35, depth: 25, ticks: 200, moves: 0.15, drops: true });
  });

  it("does so in a crowd over VIEW_MAX_PLAYERS, its players coming and going", () => {
    const sdk = new SdkWorld({ maxPlayers: 3 });
    playSession(sdk, { seed: 14, width: 6, depth: 6, ticks: 120, moves: 0.3, drops: true });
  });

  it("does so for clients sent the full state one or two ticks after they joined", () => {
    const sdk = new SdkWorld({ maxPlayers: 3 });
    for (let i = 0; i < 8; i++) {
      sdk.join(`p${i}`, 10 + (i % 3), 10, i % 3);
      sdk.step();
    }
    for (const id of sdk.clients.keys()) {
      assert.ok(sdk.held(id).has(id), `${id} holds itself`);
      assert.deepEqual(sdk.held(id), sdk.shouldHold(id));
    }
  });

  it("shows a player's change of fields to every client that holds it, once", () => {
    const sdk = new SdkWorld();
    sdk.join("a", 10, 10);
    sdk.join("b", 11, 10);
    sdk.step();
    const before = sdk.frames.get("b")!.length;
    sdk.world.submit("a", { type: "move", x: 12, z: 12 });
    for (let tick = 0; tick < 3; tick++) sdk.step();
    assert.match(sdk.held("b").get("a")!, /x=12 z=12/);
    assert.ok(sdk.frames.get("b")!.length > before);
  });
});
