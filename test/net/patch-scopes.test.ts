import assert from "node:assert/strict";
import { type Client, ClientState, SchemaSerializer, type Serializer } from "@colyseus/core";
import { seededRandom } from "../../src/game/random.js";
import type { World } from "../../src/game/world.js";
import { PatchScopes, scopeSchemaSerializer } from "../../src/net/patch-scopes.js";
import { Interest } from "../../src/rooms/interest.js";
import { WorldRoomState } from "../../src/schema/WorldRoomState.js";
import { character, makeWorld } from "../game/world-fixture.js";

/**
 * A world, its replicated state and its interest, with SDK clients, published tick by tick as WorldRoom
 * does: the views, then the patch. `scoped` encodes with the room's serializer; otherwise with Colyseus's.
 */
class SdkWorld {
  readonly world: World;
  private readonly interest: Interest;
  private readonly state = new WorldRoomState();
  private readonly serializer: Serializer<WorldRoomState>;
  /** The SDK clients online, by player: sent their full state at their join, then their patches. */
  private readonly clients = new Map<string, Client>();
  /** Every frame each client was sent, by player, those who left included. */
  private readonly frames = new Map<string, Buffer[]>();
  private clock = 0;

  constructor(scoped: boolean) {
    const now = () => this.clock;
    this.world = makeWorld({ now, wallClock: now });
    const scopes = scoped ? new PatchScopes() : undefined;
    this.serializer = scopes ? scopeSchemaSerializer(new SchemaSerializer(), scopes) : new SchemaSerializer();
    this.serializer.reset(this.state);
    this.interest = new Interest(this.world, this.state, scopes);
  }

  join(playerId: string, x: number, z: number): void {
    this.world.join(character(playerId, { position: { x, z } }));
    const frames: Buffer[] = [];
    this.frames.set(playerId, frames);
    const client = {
      sessionId: `session-${playerId}`,
      state: ClientState.JOINED,
      raw: (bytes: Uint8Array) => frames.push(Buffer.from(bytes)),
    } as unknown as Client;
    this.clients.set(playerId, client);
    this.interest.open(client, playerId);
    this.interest.update(client);
    frames.push(Buffer.from(this.serializer.getFullState(client)));
  }

  leave(playerId: string): void {
    this.interest.close(this.clients.get(playerId)!);
    this.clients.delete(playerId);
    this.world.leave(playerId);
  }

  /**
   * `ticks` ticks (more than one when a tick's write outlasts the next tick), then one publish, in which
   * only the views of the players `updated` lets through are brought up to date.
   */
  step(updated: (playerId: string) => boolean, ticks: number): void {
    for (let i = 0; i < ticks; i++) {
      this.clock += 600;
      const report = this.world.step();
      this.interest.applyTick(report, new Set(report.changedEntities));
    }
    for (const [playerId, client] of this.clients) if (updated(playerId)) this.interest.update(client);
    this.serializer.applyPatches([...this.clients.values()], this.state);
  }

  /** Every frame each client was sent, by player. */
  sent(): ReadonlyMap<string, readonly Buffer[]> {
    return this.frames;
  }
}

/** The same seeded session of joins, leaves, moves, drops and missed updates, played on `sdk`. */
function play(sdk: SdkWorld): void {
  const random = seededRandom(11);
  const tile = () => ({ x: Math.floor(random() * 55), z: Math.floor(random() * 45) });
  const online = new Set<string>();
  let next = 0;
  const join = () => {
    const id = `p${next++}`;
    const { x, z } = tile();
    sdk.join(id, x, z);
    online.add(id);
  };
  for (let i = 0; i < 40; i++) join();
  for (let tick = 0; tick < 150; tick++) {
    for (const id of [...online]) {
      const roll = random();
      if (roll < 0.3) {
        const { x, z } = tile();
        sdk.world.submit(id, { type: "move", x, z });
      } else if (roll < 0.35) {
        const { x, z } = tile();
        sdk.world.submit(id, { type: "teleport", x, z });
      } else if (roll < 0.4) {
        const coins = sdk.world.inventory(id).find((entry) => entry.itemId === "coins");
        if (coins) sdk.world.submit(id, { type: "action", action: "drop", inventorySlot: coins.slot });
      } else if (roll < 0.403) {
        sdk.leave(id);
        online.delete(id);
      }
    }
    if (random() < 0.1) join();
    // One view in ten misses its tick's update: its patch is then encoded from the whole queue.
    const updated = new Set([...online].filter(() => random() >= 0.1));
    sdk.step((id) => updated.has(id), random() < 0.05 ? 2 : 1);
  }
}

describe("PatchScopes: each SDK client's patch encoded from what it sees", () => {
  it("sends every SDK client the very bytes Colyseus's walk over every change sends it", () => {
    const scoped = new SdkWorld(true);
    const whole = new SdkWorld(false);
    play(scoped);
    play(whole);
    const expected = whole.sent();
    const actual = scoped.sent();
    assert.deepEqual([...actual.keys()], [...expected.keys()]);
    let compared = 0;
    for (const [playerId, frames] of expected) {
      assert.equal(actual.get(playerId)!.length, frames.length, `${playerId}'s frame count`);
      for (const [i, frame] of frames.entries()) {
        assert.ok(actual.get(playerId)![i]!.equals(frame), `${playerId}'s frame ${i}`);
      }
      compared += frames.length;
    }
    assert.ok(compared > 1000, `only ${compared} frames were compared`);
  });
});
