import assert from "node:assert/strict";
import type { Duplex } from "node:stream";
import { type Client, ClientState } from "@colyseus/core";
import type { WebSocket } from "ws";
import type { Tile } from "../../src/game/types.js";
import { createOutbox } from "../../src/net/outbox.js";
import { JsonClient } from "../../src/protocol/json-client.js";
import { Interest } from "../../src/rooms/interest.js";
import { deliverEvents } from "../../src/rooms/outgoing-events.js";
import { WorldRoomState } from "../../src/schema/WorldRoomState.js";
import { character, makeWorld, SPAWN } from "../game/world-fixture.js";

interface Frame {
  event: string;
  data: any;
}

/** The text frames in what a server wrote to a WebSocket connection (unmasked, RFC 6455). */
function readFrames(bytes: Buffer): Frame[] {
  const frames: Frame[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    assert.equal(bytes[offset], 0x81, "a final text frame");
    let length = bytes[offset + 1]!;
    offset += 2;
    if (length === 126) {
      length = bytes.readUInt16BE(offset);
      offset += 2;
    } else if (length === 127) {
      length = Number(bytes.readBigUInt64BE(offset));
      offset += 8;
    }
    frames.push(JSON.parse(bytes.subarray(offset, offset + length).toString()));
    offset += length;
  }
  return frames;
}

/** A joined /ws client whose connection keeps what the server writes. */
function recordingClient(playerId: string): { client: JsonClient; frames: () => Frame[] } {
  const written: Buffer[] = [];
  const tcp = {
    destroyed: false,
    writableLength: 0,
    write: (bytes: Buffer) => written.push(Buffer.from(bytes)) > 0,
    cork: () => {},
    uncork: () => {},
  };
  const socket = { readyState: 1, OPEN: 1, bufferedAmount: 0 } as unknown as WebSocket;
  const client = new JsonClient(`session-${playerId}`, socket, {
    maxBufferedBytes: 1 << 20,
    tcp: tcp as unknown as Duplex,
  });
  client.state = ClientState.JOINED;
  return { client, frames: () => readFrames(Buffer.concat(written)) };
}

describe("deliverEvents: a tick's events to the clients that see them", () => {
  // The recording sockets have no descriptor: both write paths write them through their streams.
  const outbox = createOutbox("thread");
  after(() => outbox.close());
  // View cells are 10 tiles wide and each player sees its cell and the ones around it.
  const positions: Record<string, Tile> = {
    alice: SPAWN,
    bob: { x: SPAWN.x + 11, z: SPAWN.z },
    dave: { x: SPAWN.x + 25, z: SPAWN.z },
    carol: { x: SPAWN.x + 35, z: SPAWN.z },
  };

  /** The players at `at`, each with a recording client; `cap` is the view's players cap. */
  function setUp(at: Record<string, Tile> = positions, cap?: number) {
    const world = makeWorld();
    const interest = new Interest(world, new WorldRoomState(), undefined, cap);
    const clients = new Map<string, ReturnType<typeof recordingClient>>();
    for (const [id, position] of Object.entries(at)) {
      world.join(character(id, { position }));
      const recording = recordingClient(id);
      clients.set(id, recording);
      interest.open(recording.client as unknown as Client, id);
    }
    /** One tick published as the WorldRoom does: views, then events. */
    const publish = () => {
      const report = world.step();
      interest.applyTick(report, new Set(report.changedEntities));
      const all = [...clients.values()].map(({ client }) => client);
      outbox.batch(all as unknown as Client[], (slab) => {
        interest.updateAll((client, update) => client.send("world:update", update));
        deliverEvents(report.events, interest, (id) => clients.get(id)?.client as unknown as Client, slab);
      });
      return report;
    };
    publish();
    return { world, clients, publish };
  }

  it("sends each chat to the players who see its tile, in the order the tick made them", () => {
    const { world, clients, publish } = setUp();
    const seenBefore = new Map([...clients].map(([id, { frames }]) => [id, frames().length]));
    world.submit("bob", { type: "chat", message: "first" });
    world.submit("alice", { type: "chat", message: "second" });
    world.submit("dave", { type: "chat", message: "third" });
    const report = publish();
    // A tick takes its players' messages in the order they entered the world: alice before bob.
    const order = report.events.map((event) => (event.data as { message?: string }).message);
    assert.deepEqual(order, ["second", "first", "third"]);

    const heard = (id: string) =>
      clients
        .get(id)!
        .frames()
        .slice(seenBefore.get(id))
        .filter((frame) => frame.event === "chat:message")
        .map((frame) => frame.data.message);
    assert.deepEqual(heard("alice"), ["second", "first"]);
    assert.deepEqual(heard("bob"), ["second", "first", "third"]);
    assert.deepEqual(heard("dave"), ["first", "third"]);
    assert.deepEqual(heard("carol"), ["third"]);
  });

  it("sends a crowded client the events within the reach of the players it is shown", () => {
    // A cap of 1: alice and bob share a block of tiles and are each other's one player; carol and dave
    // are in view, out of the choice, and what they say does not reach the block.
    const crowd: Record<string, Tile> = {
      alice: SPAWN,
      bob: { x: SPAWN.x + 1, z: SPAWN.z },
      dave: { x: SPAWN.x + 7, z: SPAWN.z },
      carol: { x: SPAWN.x + 12, z: SPAWN.z },
    };
    const { world, clients, publish } = setUp(crowd, 1);
    const before = clients.get("alice")!.frames().length;
    world.submit("carol", { type: "chat", message: "far" });
    world.submit("dave", { type: "chat", message: "near" });
    world.submit("bob", { type: "chat", message: "beside" });
    publish();
    const heard = clients
      .get("alice")!
      .frames()
      .slice(before)
      .filter((frame) => frame.event === "chat:message")
      .map((frame) => frame.data.message);
    assert.deepEqual(heard, ["beside"]);
  });

  it("puts a player's own events after its view and the events around it", () => {
    const { world, clients, publish } = setUp();
    const before = clients.get("alice")!.frames().length;
    const coins = world.inventory("alice").find((entry) => entry.itemId === "coins")!;
    world.submit("alice", { type: "action", action: "drop", inventorySlot: coins.slot });
    world.submit("bob", { type: "chat", message: "hello" });
    const report = publish();
    assert.ok(report.events.some((event) => event.event === "player:sync" && event.to === "alice"));
    const events = clients
      .get("alice")!
      .frames()
      .slice(before)
      .map((frame) => frame.event);
    assert.deepEqual(events, ["world:update", "chat:message", "player:sync"]);
    const bobs = clients.get("bob")!.frames();
    assert.ok(
      !bobs.some((frame) => frame.event === "player:sync" && frame.data.id === "alice"),
      "a player's sync goes to that player alone",
    );
  });
});
