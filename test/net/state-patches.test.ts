import assert from "node:assert/strict";
import { type Client, ClientState } from "@colyseus/core";
import { Decoder } from "@colyseus/schema";
import { StatePatches, WireView } from "../../src/net/state-patches.js";
import { EntityState, WorldRoomState } from "../../src/schema/WorldRoomState.js";
import { playSession, SdkWorld } from "../support/sdk-world.js";

// After every publish, each joined SDK client's state, decoded as the SDK decodes it, is checked against
// what a /ws client of the same player holds (SdkWorld.step): the same entities, field for field.
describe("StatePatches: SDK clients' decoded state", () => {
  it("holds what a /ws client of the same player holds, through moves, teleports, drops and leaves", () => {
    const sdk = new SdkWorld();
    playSession(sdk, { seed: 11, width: 55, depth: 45, ticks: 150, moves: 0.3 });
    assert.ok(sdk.framesSent.size > 40);
  });

  it("does so when views miss a tick's update and publishes follow two ticks", () => {
    const sdk = new SdkWorld();
    playSession(sdk, { seed: 12, width: 55, depth: 45, ticks: 150, moves: 0.3, missedUpdates: true });
  });

  it("does so when players leave between a tick and its publish, listed to others by the tick", () => {
    const leaves = { width: 30, depth: 25, ticks: 120, moves: 0.3, leavesBeforePublish: true };
    playSession(new SdkWorld(), { seed: 15, ...leaves });
    playSession(new SdkWorld(), { seed: 16, ...leaves, missedUpdates: true });
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

  it("shows a player's move to the clients that hold it", () => {
    const sdk = new SdkWorld();
    sdk.join("a", 10, 10);
    sdk.join("b", 11, 10);
    sdk.step();
    const before = sdk.framesSent.get("b")!;
    sdk.world.submit("a", { type: "move", x: 12, z: 12 });
    for (let tick = 0; tick < 3; tick++) sdk.step();
    assert.match(sdk.held("b").get("a")!, /x=12 z=12/);
    assert.ok(sdk.framesSent.get("b")! > before);
  });
});

describe("StatePatches: one entity's bytes", () => {
  function oneView() {
    const state = new WorldRoomState();
    const patches = new StatePatches(EntityState, () => state.entities);
    const serializer = patches.serializer<WorldRoomState>();
    serializer.reset(state);
    const view = new WireView();
    patches.readViewsWith(() => view);
    const decoder = new Decoder(new WorldRoomState());
    const sent: Uint8Array[] = [];
    const client = {
      sessionId: "s",
      state: ClientState.JOINED,
      raw: (bytes: Uint8Array) => {
        sent.push(bytes);
        decoder.decode(Buffer.from(bytes), { offset: 1 });
      },
    } as unknown as Client;
    decoder.decode(Buffer.from(serializer.getFullState(client)), { offset: 1 });
    const publish = () => serializer.applyPatches([client], state);
    return { patches, view, publish, sent, decoded: decoder.state as WorldRoomState };
  }
  const tree = ["tree:1", "resource", "oak", "Oak", 4, 5, undefined, undefined, undefined, false];

  it("sends a held entity's changed fields, and nothing when only what clients are not sent changed", () => {
    const { patches, view, publish, sent, decoded } = oneView();
    view.add(patches.refresh("tree:1", tree));
    publish();
    assert.equal(decoded.entities.get("tree:1")?.name, "Oak");
    assert.equal(decoded.entities.get("tree:1")?.depleted, false);

    patches.refresh("tree:1", [...tree]);
    const before = sent.length;
    publish();
    assert.equal(sent.length, before, "no patch: nothing SDK clients read changed");

    patches.refresh("tree:1", [...tree.slice(0, 9), true]);
    publish();
    assert.equal(sent.length, before + 1);
    assert.equal(decoded.entities.get("tree:1")?.depleted, true);

    patches.refresh("tree:1", [...tree.slice(0, 9), undefined]);
    publish();
    assert.equal(decoded.entities.get("tree:1")?.depleted, undefined, "a field unset is unset");
  });

  it("writes a listed entity's change only to a view that was given the entity", () => {
    const { patches, view, publish, sent, decoded } = oneView();
    const oak = patches.refresh("tree:1", tree);
    // Listed as added after it left the world (a logout between a tick and its publish): not given.
    view.listed({ updated: [] }, true);
    view.missed();
    publish();
    patches.refresh("tree:1", [...tree.slice(0, 9), true]);
    const before = sent.length;
    view.listed({ updated: [{ id: "tree:1", payload: { wire: oak } }] }, true);
    publish();
    assert.equal(sent.length, before, "no patch: the view's clients were never sent the oak");
    assert.equal(decoded.entities.size, 0);
  });

  it("removes an entity that left by the ref id it was sent under, and sends one that comes back anew", () => {
    const { patches, view, publish, decoded } = oneView();
    const first = patches.refresh("tree:1", tree);
    view.add(first);
    publish();
    patches.retire("tree:1");
    view.remove(first);
    const again = patches.refresh("tree:1", [...tree.slice(0, 4), 7, 7, ...tree.slice(6)]);
    assert.notEqual(again.refId, first.refId);
    view.add(again);
    publish();
    assert.deepEqual([...decoded.entities.keys()], ["tree:1"]);
    assert.equal(decoded.entities.get("tree:1")?.x, 7);
  });
});
