import assert from "node:assert/strict";
import { type Client, ClientState, SchemaSerializer, type Serializer } from "@colyseus/core";
import { $changes } from "@colyseus/schema";
import { seededRandom } from "../../src/game/random.js";
import type { World } from "../../src/game/world.js";
import { PatchScopes, scopeSchemaSerializer } from "../../src/net/patch-scopes.js";
import { Interest } from "../../src/rooms/interest.js";
import { WorldRoomState } from "../../src/schema/WorldRoomState.js";
import { character, makeWorld } from "../game/world-fixture.js";

/**
 * A world published to SDK clients as WorldRoom publishes it: every view brought up to date together
 * (Interest.updateAll), then the patches. A dropped client is left out (LEAVING) until it reconnects.
 */
class Publisher {
  readonly world: World;
  readonly interest: Interest;
  readonly state = new WorldRoomState();
  private readonly serializer: Serializer<WorldRoomState>;
  readonly clients = new Map<string, Client>();
  /** Every frame each client was sent, by player, those who left included. */
  readonly frames = new Map<string, Buffer[]>();
  /** The most clients seen reading one StateView after a publish. */
  mostOnOneView = 0;
  private clock = 0;

  constructor(share: boolean) {
    const now = () => this.clock;
    this.world = makeWorld({ now, wallClock: now });
    const scopes = new PatchScopes();
    this.serializer = scopeSchemaSerializer(new SchemaSerializer(), scopes);
    this.serializer.reset(this.state);
    this.interest = new Interest(this.world, this.state, scopes, undefined, share);
  }

  join(playerId: string, x: number, z: number): void {
    this.world.join(character(playerId, { position: { x, z } }));
    const frames: Buffer[] = [];
    this.frames.set(playerId, frames);
    const client = this.client(playerId);
    this.interest.open(client, playerId);
    this.interest.update(client);
    frames.push(Buffer.from(this.serializer.getFullState(client)));
  }

  leave(playerId: string): void {
    this.interest.close(this.clients.get(playerId)!);
    this.clients.delete(playerId);
    this.world.leave(playerId);
  }

  /** The client's connection drops: it is left out of the publishes, its view kept for its return. */
  drop(playerId: string): void {
    (this.clients.get(playerId) as { state: ClientState }).state = ClientState.LEAVING;
  }

  /** It reconnects as a new client object, which takes over its view and is sent the state whole. */
  reconnect(playerId: string): void {
    const previous = this.clients.get(playerId)!;
    const client = this.client(playerId);
    client.view = previous.view;
    this.interest.reattach(client);
    this.frames.get(playerId)!.push(Buffer.from(this.serializer.getFullState(client)));
  }

  step(): void {
    this.clock += 600;
    const report = this.world.step();
    this.interest.applyTick(report, new Set(report.changedEntities));
    this.interest.updateAll(() => {});
    const joined = [...this.clients.values()];
    this.serializer.applyPatches(joined, this.state);
    const readers = new Map<unknown, number>();
    for (const client of joined) {
      if (client.state !== ClientState.JOINED) continue;
      const count = (readers.get(client.view) ?? 0) + 1;
      readers.set(client.view, count);
      this.mostOnOneView = Math.max(this.mostOnOneView, count);
    }
    this.interest.forgetSharedUpdates();
  }

  private client(playerId: string): Client {
    const frames = this.frames.get(playerId)!;
    const client = {
      sessionId: `session-${playerId}`,
      state: ClientState.JOINED,
      raw: (bytes: Uint8Array) => frames.push(Buffer.from(bytes)),
    } as unknown as Client;
    this.clients.set(playerId, client);
    return client;
  }
}

/**
 * The same seeded session, played on `publisher`: players gathered in a few cells walk, teleport, drop
 * their coins (owner-only items take a client out of step), join, leave, drop and reconnect.
 */
function play(publisher: Publisher): void {
  const random = seededRandom(5);
  const tile = () => ({ x: Math.floor(random() * 35), z: Math.floor(random() * 25) });
  const online = new Set<string>();
  const dropped = new Map<string, number>();
  let next = 0;
  const join = () => {
    const id = `p${next++}`;
    const { x, z } = tile();
    publisher.join(id, x, z);
    online.add(id);
  };
  for (let i = 0; i < 40; i++) join();
  for (let tick = 0; tick < 200; tick++) {
    for (const id of [...online]) {
      const roll = random();
      if (roll < 0.15) {
        const { x, z } = tile();
        publisher.world.submit(id, { type: "move", x, z });
      } else if (roll < 0.17) {
        const { x, z } = tile();
        publisher.world.submit(id, { type: "teleport", x, z });
      } else if (roll < 0.19) {
        const coins = publisher.world.inventory(id).find((entry) => entry.itemId === "coins");
        if (coins) publisher.world.submit(id, { type: "action", action: "drop", inventorySlot: coins.slot });
      } else if (roll < 0.2 && !dropped.has(id)) {
        publisher.drop(id);
        dropped.set(id, tick + 1 + Math.floor(random() * 3));
      } else if (roll < 0.203 && !dropped.has(id)) {
        publisher.leave(id);
        online.delete(id);
      }
    }
    for (const [id, back] of dropped) {
      if (back > tick) continue;
      publisher.reconnect(id);
      dropped.delete(id);
    }
    if (random() < 0.1) join();
    publisher.step();
  }
}

describe("StateViewSharing: SDK clients that hold the same entities read one StateView", () => {
  it("sends every SDK client the very bytes a StateView of its own sends it", () => {
    const shared = new Publisher(true);
    const own = new Publisher(false);
    play(shared);
    play(own);
    assert.ok(shared.mostOnOneView >= 5, `at most ${shared.mostOnOneView} clients read one view`);
    assert.equal(own.mostOnOneView, 1);
    assert.deepEqual([...shared.frames.keys()], [...own.frames.keys()]);
    let compared = 0;
    for (const [playerId, frames] of own.frames) {
      const sent = shared.frames.get(playerId)!;
      assert.equal(sent.length, frames.length, `${playerId}'s frame count`);
      for (const [i, frame] of frames.entries())
        assert.ok(sent[i]!.equals(frame), `${playerId}'s frame ${i}`);
      compared += frames.length;
    }
    assert.ok(compared > 4000, `only ${compared} frames were compared`);
  });

  it("lets go of everything a closed client's view showed, shared or not", () => {
    const publisher = new Publisher(true);
    for (let i = 0; i < 6; i++) publisher.join(`p${i}`, 5 + i, 5);
    for (let tick = 0; tick < 3; tick++) publisher.step();
    const views = new Set([...publisher.clients.values()].map((client) => client.view!));
    assert.ok(views.size < 6, "the clients of one cell share a view");
    const trees = [...publisher.state.entities.values()].map((entity) => entity[$changes]!);
    assert.ok([...views].every((view) => trees.some((tree) => view.isVisible(tree))));
    for (const id of [...publisher.clients.keys()]) publisher.leave(id);
    for (const view of views) assert.ok(trees.every((tree) => !view.isVisible(tree)));
  });
});
