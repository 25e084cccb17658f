import assert from "node:assert/strict";
import { type Client, ClientState, SchemaSerializer, type Serializer } from "@colyseus/core";
import { Decoder } from "@colyseus/schema";
import type { World } from "../../src/game/world.js";
import { PatchScopes, scopeSchemaSerializer } from "../../src/net/patch-scopes.js";
import { Interest } from "../../src/rooms/interest.js";
import { WorldRoomState } from "../../src/schema/WorldRoomState.js";
import { character, makeWorld, SPAWN } from "../game/world-fixture.js";

/** A world with SDK clients whose frames are decoded as the SDK decodes them, published as WorldRoom does. */
class DecodedSdkWorld {
  readonly world: World;
  readonly interest: Interest;
  private readonly state = new WorldRoomState();
  private readonly serializer: Serializer<WorldRoomState>;
  readonly clients = new Map<string, Client>();
  readonly decoded = new Map<string, WorldRoomState>();
  private readonly decoders = new Map<string, Decoder>();
  private clock = 0;

  constructor(scoped: boolean, maxPlayers: number) {
    const now = () => this.clock;
    this.world = makeWorld({ now, wallClock: now });
    const scopes = scoped ? new PatchScopes() : undefined;
    this.serializer = scopes ? scopeSchemaSerializer(new SchemaSerializer(), scopes) : new SchemaSerializer();
    this.serializer.reset(this.state);
    this.interest = new Interest(this.world, this.state, scopes, maxPlayers);
  }

  /**
   * As a live join: the player is in the world, its view opened and brought up to date at once (between
   * ticks, WorldSessions.sendView), and the client is JOINING for `joiningTicks` ticks before Colyseus
   * sends it the full state (after the SDK's join acknowledgement) and it is JOINED.
   */
  joinLive(playerId: string, x: number, z: number, joiningTicks: number): void {
    this.world.join(character(playerId, { position: { x, z } }));
    const decoded = new WorldRoomState();
    const decoder = new Decoder(decoded);
    this.decoded.set(playerId, decoded);
    this.decoders.set(playerId, decoder);
    const client = {
      sessionId: `session-${playerId}`,
      state: ClientState.JOINING,
      raw: (bytes: Uint8Array) => decoder.decode(Buffer.from(bytes), { offset: 1 }),
    } as unknown as Client & { state: ClientState };
    this.clients.set(playerId, client);
    this.interest.open(client, playerId);
    this.interest.update(client);
    for (let i = 0; i < joiningTicks; i++) this.step();
    decoder.decode(Buffer.from(this.serializer.getFullState(client)), { offset: 1 });
    client.state = ClientState.JOINED;
  }

  join(playerId: string, x: number, z: number): void {
    this.world.join(character(playerId, { position: { x, z } }));
    const decoded = new WorldRoomState();
    const decoder = new Decoder(decoded);
    this.decoded.set(playerId, decoded);
    this.decoders.set(playerId, decoder);
    const client = {
      sessionId: `session-${playerId}`,
      state: ClientState.JOINED,
      raw: (bytes: Uint8Array) => decoder.decode(Buffer.from(bytes), { offset: 1 }),
    } as unknown as Client;
    this.clients.set(playerId, client);
    // As WorldSessions.join: the view opens at the join, and the full state is sent with it (empty).
    this.interest.open(client, playerId);
    decoder.decode(Buffer.from(this.serializer.getFullState(client)), { offset: 1 });
  }

  step(): void {
    this.clock += 600;
    const report = this.world.step();
    this.interest.applyTick(report, new Set(report.changedEntities));
    for (const client of this.clients.values()) this.interest.update(client);
    this.serializer.applyPatches([...this.clients.values()], this.state);
    this.interest.forgetSharedUpdates();
  }

  /** The viewer's decoded entities, as `id@x,z`, keyed by map key. */
  seen(playerId: string): string[] {
    const out: string[] = [];
    this.decoded.get(playerId)!.entities.forEach((e, key) => {
      out.push(`${key}=${e.id}@${e.x},${e.z}`);
    });
    return out.sort();
  }
}

function play(scoped: boolean, joiningTicks?: number, maxPlayers = 3): string[] {
  const sdk = new DecodedSdkWorld(scoped, maxPlayers);
  const problems: string[] = [];
  for (let i = 0; i < 7; i++) {
    if (joiningTicks === undefined) sdk.join(`p${i}`, SPAWN.x, SPAWN.z);
    else sdk.joinLive(`p${i}`, SPAWN.x, SPAWN.z, joiningTicks);
    sdk.step();
    sdk.step();
    for (const id of sdk.clients.keys()) {
      const seen = sdk.seen(id);
      const ghosts = seen.filter((entry) => !entry.startsWith(`${entry.split("=")[1]!.split("@")[0]}=`));
      if (ghosts.length) problems.push(`after join ${i}: ${id} holds ${ghosts.join(", ")}`);
      if (!seen.some((entry) => entry.startsWith(`${id}=${id}@`)))
        problems.push(`after join ${i}: ${id} does not hold itself`);
      const players = seen.filter((entry) => entry.startsWith("p")).length;
      if (players > Math.min(maxPlayers, 6) + 1)
        problems.push(`after join ${i}: ${id} holds ${players} players`);
    }
  }
  return problems;
}

describe("SDK clients' decoded state in a crowd (VIEW_MAX_PLAYERS=3), players joining as the room joins them", () => {
  it("with Colyseus's own patch encoding: every client holds itself, no entry without its fields", () => {
    assert.deepEqual(play(false), []);
  });
  it("with the room's scoped patches (PatchScopes): every client holds itself, no entry without its fields", () => {
    assert.deepEqual(play(true), []);
  });
  it("no crowd (VIEW_MAX_PLAYERS=255), joined as the room joins them (1 tick before the full state), scoped patches", () => {
    assert.deepEqual(play(true, 1, 255), []);
  });
  for (const joiningTicks of [0, 1, 2]) {
    it(`joined as the room joins them (${joiningTicks} ticks before the full state), Colyseus's encoding`, () => {
      assert.deepEqual(play(false, joiningTicks), []);
    });
    it(`joined as the room joins them (${joiningTicks} ticks before the full state), scoped patches`, () => {
      assert.deepEqual(play(true, joiningTicks), []);
    });
  }
});
