// A world published to SDK clients that read the schema state, as WorldRoom publishes it, without sockets:
// every frame each client is sent is kept, and decoded as the SDK decodes it; beside each SDK client, a
// client of the same player reads world:update, as a /ws client does, to tell what the SDK client should hold.
import assert from "node:assert/strict";
import { type Client, ClientState, type Serializer } from "@colyseus/core";
import { Decoder } from "@colyseus/schema";
import { seededRandom } from "../../src/game/random.js";
import type { World } from "../../src/game/world.js";
import { StatePatches } from "../../src/net/state-patches.js";
import type { EncodedUpdate } from "../../src/protocol/encoded-json.js";
import { Interest } from "../../src/rooms/interest.js";
import { EntityState, WorldRoomState } from "../../src/schema/WorldRoomState.js";
import { character, makeWorld } from "../game/world-fixture.js";

export interface SdkWorldOptions {
  /** Clients in step share views (StateViewSharing); otherwise each has its own. */
  share?: boolean;
  /** VIEW_MAX_PLAYERS. */
  maxPlayers?: number;
}

/** An entity's fields as a client holds them, in one line. */
type Held = Map<string, string>;

export class SdkWorld {
  readonly world: World;
  readonly interest: Interest;
  readonly state = new WorldRoomState();
  private readonly serializer: Serializer<WorldRoomState>;
  /** The SDK clients in the room, by player: sent their full state at their join, then their patches. */
  readonly clients = new Map<string, Client>();
  /** How many frames each client was sent, by player, those who left included. */
  readonly framesSent = new Map<string, number>();
  /** The last frame each client was sent, as the serializer handed it over. */
  readonly lastSent = new Map<string, Uint8Array>();
  /** Each player's decoded state, as its SDK client holds it. */
  private readonly decoded = new Map<string, { state: WorldRoomState; decoder: Decoder }>();
  /** What a /ws client of each player holds, from the world:update it is sent. */
  private readonly reference = new Map<string, Map<string, Record<string, unknown>>>();
  private readonly referenceClients = new Map<string, Client>();
  /** The most joined clients seen reading one view after a publish. */
  mostOnOneView = 0;
  private clock = 0;
  private readonly patches: StatePatches;

  constructor({ share = true, maxPlayers }: SdkWorldOptions = {}) {
    const now = () => this.clock;
    this.world = makeWorld({ now, wallClock: now });
    this.patches = new StatePatches(EntityState, () => this.state.entities);
    this.serializer = this.patches.serializer();
    this.serializer.reset(this.state);
    this.interest = new Interest(this.world, this.state, this.patches, maxPlayers, share);
  }

  /** Joins the player; its client is JOINING for `joiningTicks` ticks before it is sent the full state. */
  join(playerId: string, x: number, z: number, joiningTicks = 0): void {
    this.world.join(character(playerId, { position: { x, z } }));
    this.framesSent.set(playerId, 0);
    const decoder = new Decoder(new WorldRoomState());
    this.decoded.set(playerId, { state: decoder.state as WorldRoomState, decoder });
    const client = this.client(playerId, ClientState.JOINING);
    this.interest.open(client, playerId);
    this.interest.update(client);
    const reference = { sessionId: `ref-${playerId}`, state: ClientState.JOINED } as unknown as Client;
    this.referenceClients.set(playerId, reference);
    this.reference.set(playerId, new Map());
    this.interest.open(reference, playerId, "messages");
    this.readReference(playerId, this.interest.update(reference));
    for (let i = 0; i < joiningTicks; i++) this.step();
    this.sendFullState(playerId, client);
  }

  leave(playerId: string): void {
    this.interest.close(this.clients.get(playerId)!);
    this.interest.close(this.referenceClients.get(playerId)!);
    this.clients.delete(playerId);
    this.referenceClients.delete(playerId);
    this.world.leave(playerId);
  }

  /** The client's connection drops: it is left out of the publishes, its view kept for its return. */
  drop(playerId: string): void {
    (this.clients.get(playerId) as { state: ClientState }).state = ClientState.LEAVING;
  }

  /** It reconnects as a new client object, which takes over its view and is sent the state whole. */
  reconnect(playerId: string): void {
    const client = this.client(playerId, ClientState.JOINING);
    this.interest.reattach(client);
    this.interest.update(client);
    this.sendFullState(playerId, client);
  }

  /**
   * `ticks` ticks (more than one when a tick's write outlasts the next tick), then one publish: every view
   * brought up to date together, as the room does, or (`updated`) one by one, only those it lets through.
   */
  step({
    ticks = 1,
    updated,
    beforePublish,
  }: {
    ticks?: number;
    updated?: (playerId: string) => boolean;
    /** Runs between the ticks and their publish, as a logout during the tick's database write does. */
    beforePublish?: () => void;
  } = {}): void {
    for (let i = 0; i < ticks; i++) {
      this.clock += 600;
      const report = this.world.step();
      this.interest.applyTick(report, new Set(report.changedEntities));
    }
    beforePublish?.();
    if (updated) {
      for (const [playerId, client] of this.clients) if (updated(playerId)) this.interest.update(client);
      for (const [playerId, client] of this.referenceClients)
        this.readReference(playerId, this.interest.update(client));
    } else {
      this.interest.updateAll((client, update) =>
        this.readReference(client.sessionId.slice("ref-".length), update),
      );
    }
    const clients = [...this.clients.values()];
    this.serializer.applyPatches(clients, this.state);
    const readers = new Map<unknown, number>();
    for (const [playerId, client] of this.clients) {
      if (client.state !== ClientState.JOINED) continue;
      const view = this.patches.viewOf(client);
      const count = (readers.get(view) ?? 0) + 1;
      readers.set(view, count);
      this.mostOnOneView = Math.max(this.mostOnOneView, count);
      if (!updated || updated(playerId)) this.checkHeld(playerId);
    }
    this.interest.forgetSharedUpdates();
  }

  /** What the player's SDK client holds, decoded: each entity's fields in one line, by map key. */
  held(playerId: string): Held {
    const held: Held = new Map();
    this.decoded.get(playerId)!.state.entities.forEach((entity, key) => {
      held.set(key, line(entity));
    });
    return held;
  }

  /** What a /ws client of the player holds: the same lines, from world:update. */
  shouldHold(playerId: string): Held {
    const held: Held = new Map();
    for (const [id, entity] of this.reference.get(playerId)!) {
      const { position, ...rest } = entity as { position: { x: number; z: number } };
      held.set(id, line({ ...rest, x: position.x, z: position.z }));
    }
    return held;
  }

  private checkHeld(playerId: string): void {
    assert.deepEqual(
      new Map([...this.held(playerId)].sort()),
      new Map([...this.shouldHold(playerId)].sort()),
      `${playerId}'s SDK client at tick ${this.world.tick}`,
    );
  }

  private readReference(playerId: string, update: EncodedUpdate | undefined): void {
    if (!update) return;
    const { added, updated, removed } = JSON.parse(update.text) as {
      added: Record<string, unknown>[];
      updated: Record<string, unknown>[];
      removed: string[];
    };
    const held = this.reference.get(playerId)!;
    for (const entity of [...added, ...updated]) held.set(entity.id as string, entity);
    for (const id of removed) held.delete(id);
  }

  private sendFullState(playerId: string, client: Client): void {
    (client as { state: ClientState }).state = ClientState.JOINED;
    const full = this.serializer.getFullState(client);
    this.counted(playerId);
    const { decoder } = this.decoded.get(playerId)!;
    // As the SDK: a full state decoded onto a state it holds already replaces it.
    if (decoder.root.refs.size > 1) decoder.decodeResync(Buffer.from(full), { offset: 1 });
    else decoder.decode(Buffer.from(full), { offset: 1 });
  }

  private counted(playerId: string): void {
    this.framesSent.set(playerId, this.framesSent.get(playerId)! + 1);
  }

  private client(playerId: string, state: ClientState): Client {
    const { decoder } = this.decoded.get(playerId)!;
    const client = {
      sessionId: `session-${playerId}`,
      state,
      raw: (bytes: Uint8Array) => {
        this.lastSent.set(playerId, bytes);
        this.counted(playerId);
        decoder.decode(Buffer.from(bytes), { offset: 1 });
      },
    } as unknown as Client;
    this.clients.set(playerId, client);
    return client;
  }
}

const FIELDS = [
  "id",
  "kind",
  "type",
  "name",
  "x",
  "z",
  "health",
  "maxHealth",
  "quantity",
  "depleted",
] as const;

function line(entity: object): string {
  const fields = entity as Record<string, unknown>;
  return FIELDS.map((field) => `${field}=${String(fields[field] ?? "")}`).join(" ");
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
  /** Players leave between a tick and its publish as well (a logout while the tick is written). */
  leavesBeforePublish?: boolean;
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
    // Listed to the others by the tick, gone from the world by its publish.
    const beforePublish = session.leavesBeforePublish
      ? () => {
          for (const id of [...online]) {
            if (random() >= 0.01 || dropped.has(id)) continue;
            sdk.leave(id);
            online.delete(id);
          }
        }
      : undefined;
    if (!session.missedUpdates) {
      sdk.step({ beforePublish });
      continue;
    }
    // One view in ten misses its tick's update: its patch is then encoded from the whole queue.
    const updated = new Set([...online].filter(() => random() >= 0.1));
    sdk.step({ updated: (id) => updated.has(id), ticks: random() < 0.05 ? 2 : 1, beforePublish });
  }
}
