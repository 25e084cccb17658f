// A world published to SDK clients that read the schema state, as WorldRoom publishes it, without sockets:
// every frame each client is sent is kept, so that two ways of encoding can be compared byte for byte.
import assert from "node:assert/strict";
import { type Client, ClientState, SchemaSerializer, type Serializer } from "@colyseus/core";
import { seededRandom } from "../../src/game/random.js";
import type { World } from "../../src/game/world.js";
import { PatchScopes, scopeSchemaSerializer } from "../../src/net/patch-scopes.js";
import { Interest } from "../../src/rooms/interest.js";
import { WorldRoomState } from "../../src/schema/WorldRoomState.js";
import { character, makeWorld } from "../game/world-fixture.js";

export interface SdkWorldOptions {
  /** Patches encoded with the room's scoped serializer (PatchScopes); otherwise with Colyseus's own. */
  scoped?: boolean;
  /** Clients in step share StateViews (StateViewSharing); otherwise each has its own. */
  share?: boolean;
}

export class SdkWorld {
  readonly world: World;
  readonly interest: Interest;
  readonly state = new WorldRoomState();
  private readonly serializer: Serializer<WorldRoomState>;
  /** The SDK clients in the room, by player: sent their full state at their join, then their patches. */
  readonly clients = new Map<string, Client>();
  /** Every frame each client was sent, by player, those who left included. */
  readonly frames = new Map<string, Buffer[]>();
  /** The most joined clients seen reading one StateView after a publish. */
  mostOnOneView = 0;
  private clock = 0;

  constructor({ scoped = true, share = true }: SdkWorldOptions = {}) {
    const now = () => this.clock;
    this.world = makeWorld({ now, wallClock: now });
    const scopes = scoped ? new PatchScopes() : undefined;
    this.serializer = scopes ? scopeSchemaSerializer(new SchemaSerializer(), scopes) : new SchemaSerializer();
    this.serializer.reset(this.state);
    this.interest = new Interest(this.world, this.state, scopes, undefined, share);
  }

  join(playerId: string, x: number, z: number): void {
    this.world.join(character(playerId, { position: { x, z } }));
    this.frames.set(playerId, []);
    const client = this.client(playerId);
    this.interest.open(client, playerId);
    this.interest.update(client);
    this.frames.get(playerId)!.push(Buffer.from(this.serializer.getFullState(client)));
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

  /**
   * `ticks` ticks (more than one when a tick's write outlasts the next tick), then one publish: every view
   * brought up to date together, as the room does, or (`updated`) one by one, only those it lets through.
   */
  step({ ticks = 1, updated }: { ticks?: number; updated?: (playerId: string) => boolean } = {}): void {
    for (let i = 0; i < ticks; i++) {
      this.clock += 600;
      const report = this.world.step();
      this.interest.applyTick(report, new Set(report.changedEntities));
    }
    if (updated) {
      for (const [playerId, client] of this.clients) if (updated(playerId)) this.interest.update(client);
    } else {
      this.interest.updateAll(() => {});
    }
    const clients = [...this.clients.values()];
    this.serializer.applyPatches(clients, this.state);
    const readers = new Map<unknown, number>();
    for (const client of clients) {
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

export interface Session {
  seed: number;
  /** The players start, move and teleport within this many tiles of the corner, each way. */
  width: number;
  depth: number;
  ticks: number;
  /** The chance that a player walks somewhere in a tick. */
  moves: number;
  /** Each tick, a view in ten misses its update (updated one by one); else the room's publish. */
  missedUpdates?: boolean;
  /** Connections drop and come back within three ticks. */
  drops?: boolean;
}

/**
 * A seeded session on `sdk`: 40 players join, walk, teleport, drop their coins (their own items take a
 * client out of step), leave, and more join; played the same on every SdkWorld given the same session.
 */
export function playSession(sdk: SdkWorld, session: Session): void {
  const random = seededRandom(session.seed);
  const tile = () => ({ x: Math.floor(random() * session.width), z: Math.floor(random() * session.depth) });
  const online = new Set<string>();
  const dropped = new Map<string, number>();
  let next = 0;
  const join = () => {
    const id = `p${next++}`;
    const { x, z } = tile();
    sdk.join(id, x, z);
    online.add(id);
  };
  for (let i = 0; i < 40; i++) join();
  for (let tick = 0; tick < session.ticks; tick++) {
    for (const id of [...online]) {
      const roll = random();
      if (roll < session.moves) {
        const { x, z } = tile();
        sdk.world.submit(id, { type: "move", x, z });
      } else if (roll < session.moves + 0.02) {
        const { x, z } = tile();
        sdk.world.submit(id, { type: "teleport", x, z });
      } else if (roll < session.moves + 0.04) {
        const coins = sdk.world.inventory(id).find((entry) => entry.itemId === "coins");
        if (coins) sdk.world.submit(id, { type: "action", action: "drop", inventorySlot: coins.slot });
      } else if (session.drops && roll < session.moves + 0.05 && !dropped.has(id)) {
        sdk.drop(id);
        dropped.set(id, tick + 1 + Math.floor(random() * 3));
      } else if (roll > 0.997 && !dropped.has(id)) {
        sdk.leave(id);
        online.delete(id);
      }
    }
    for (const [id, back] of dropped) {
      if (back > tick) continue;
      sdk.reconnect(id);
      dropped.delete(id);
    }
    if (random() < 0.1) join();
    if (!session.missedUpdates) {
      sdk.step();
      continue;
    }
    // One view in ten misses its tick's update: its patch is then encoded from the whole queue.
    const updated = new Set([...online].filter(() => random() >= 0.1));
    sdk.step({ updated: (id) => updated.has(id), ticks: random() < 0.05 ? 2 : 1 });
  }
}

/** Asserts that every client was sent the very same frames in both; how many frames were compared. */
export function sameFrames(actual: SdkWorld, expected: SdkWorld): number {
  assert.deepEqual([...actual.frames.keys()], [...expected.frames.keys()]);
  let compared = 0;
  for (const [playerId, frames] of expected.frames) {
    const sent = actual.frames.get(playerId)!;
    assert.equal(sent.length, frames.length, `${playerId}'s frame count`);
    for (const [i, frame] of frames.entries()) assert.ok(sent[i]!.equals(frame), `${playerId}'s frame ${i}`);
    compared += frames.length;
  }
  return compared;
}
