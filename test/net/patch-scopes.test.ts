import assert from "node:assert/strict";
import { playSession, SdkWorld, sameFrames } from "../support/sdk-world.js";

describe("PatchScopes: each SDK client's patch encoded from what it sees", () => {
  it("sends every SDK client the very bytes Colyseus's walk over every change sends it", () => {
    // Joins, leaves, moves, drops, views that miss a tick's update and publishes that follow two ticks.
    const session = { seed: 11, width: 55, depth: 45, ticks: 150, moves: 0.3, missedUpdates: true };
    const scoped = new SdkWorld({ scoped: true });
    const whole = new SdkWorld({ scoped: false });
    playSession(scoped, session);
    playSession(whole, session);
    const compared = sameFrames(scoped, whole);
    assert.ok(compared > 1000, `only ${compared} frames were compared`);
  });
});
