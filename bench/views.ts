// The views benchmark: the tick work this server does for its /ws clients, in one process and without
// sockets, so that it measures the same from run to run. N players scattered over the world walk (or
// chat) as the world bench's bots do; each tick runs the world step, takes its changes into the
// interest index, and publishes as the WorldRoom does (each client's world:update, then the events
// around it and its own, framed into one buffer per client), then lets go of what the updates shared
// and empties the young generation as the room does. Only the socket write itself is left out
// (bench/write-floor.ts measures it).
//   node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/views.ts [--players 2000] [--ticks 300] [--crowd] [--sdk]
// (--crowd: they stay at the spawn point and walk from there, as the world bench's --crowd bots do;
// --sdk: the clients read the schema state, as SDK clients do: their views are kept and each is encoded
// its state patch, as the server encodes them)
// (the garbage-collector flags `npm start` gives the server; the header shows the young generation in effect).
import { PerformanceObserver, performance } from "node:perf_hooks";
import type { Duplex } from "node:stream";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import { type Client, ClientState } from "@colyseus/core";
import type { WebSocket } from "ws";
import { newCharacter } from "../src/game/character.js";
import { seededRandom } from "../src/game/random.js";
import type { Tile } from "../src/game/types.js";
import { World } from "../src/game/world.js";
import { createOutbox } from "../src/net/outbox.js";
import { StatePatches } from "../src/net/state-patches.js";
import { WriteSlab } from "../src/net/write-slab.js";
import { JsonClient } from "../src/protocol/json-client.js";
import { toIntent, type WorldEvent } from "../src/protocol/messages.js";
import { Interest } from "../src/rooms/interest.js";
import { deliverEvents } from "../src/rooms/outgoing-events.js";
import { collectTickGarbage } from "../src/rooms/tick-garbage.js";
import { sendUpdate } from "../src/rooms/world-client.js";
import { EntityState, WorldRoomState } from "../src/schema/WorldRoomState.js";
import { putHelperThreadsBehindTheTick } from "../src/tuning/helper-threads.js";
import { localGameData } from "./game-data.js";
import { machineSpeedLine, referenceWorkMs } from "./machine-speed.js";
import { percentiles, progress } from "./stats.js";

const { values: args } = parseArgs({
  options: {
    players: { type: "string", default: "2000" },
    ticks: { type: "string", default: "300" },
    crowd: { type: "boolean", default: false },
    sdk: { type: "boolean", default: false },
  },
});
const PLAYERS = Number(args.players);
const TICKS = Number(args.ticks);
const WARM_UP_TICKS = 20;
/** A bot acts every 2 to 4 s: one tick in five. */
const ACT_EVERY_TICKS = 5;
const WALK_RANGE = 8;

// As the server does (src/server/index.ts): on one core its helper threads would otherwise take turns with the ticks.
await putHelperThreadsBehindTheTick();
const referenceMs = referenceWorkMs();
const data = await localGameData();
const random = seededRandom(1);
const world = new World({ data, random, now: () => performance.now(), wallClock: () => Date.now() });
const state = new WorldRoomState();
const patches = new StatePatches(EntityState, () => state.entities);
const interest = new Interest(world, state, patches);
const serializer = args.sdk ? patches.serializer<WorldRoomState>() : undefined;
serializer?.reset(state);
const randomInt = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));

/** Bytes the clients were sent while measuring. */
let written = 0;

/** A socket that takes every write at once: what is timed is the work before the write. */
function sink(): Duplex {
  return {
    destroyed: false,
    writable: true,
    writableLength: 0,
    write: (bytes: Buffer) => {
      written += bytes.length;
      return true;
    },
    cork: () => {},
    uncork: () => {},
  } as unknown as Duplex;
}

const open = { readyState: 1, OPEN: 1, bufferedAmount: 0 } as unknown as WebSocket;

/** An SDK client as the room's publish sees it: everything it is sent is counted, not written. */
function sdkClient(sessionId: string): Client {
  const count = (bytes: Uint8Array) => {
    written += bytes.length;
  };
  return {
    sessionId,
    state: ClientState.JOINED,
    view: undefined,
    raw: count,
    enqueueRaw: count,
  } as unknown as Client;
}

function jsonClient(sessionId: string): Client {
  const client = new JsonClient(sessionId, open, { maxBufferedBytes: Number.POSITIVE_INFINITY, tcp: sink() });
  client.state = ClientState.JOINED;
  return client as unknown as Client;
}

const clients = new Map<string, Client>();
// The socket writes are left out: the stream path's writes to the sinks above.
const outbox = createOutbox("stream");
for (let i = 0; i < PLAYERS; i++) {
  const id = `bot-${i}`;
  world.join(newCharacter(id, `Bot${i}`, data));
  if (!args.crowd) {
    const area = data.areas[randomInt(0, data.areas.length - 1)]!;
    const { minX, maxX, minZ, maxZ } = area.bounds;
    world.submit(id, { type: "teleport", x: randomInt(minX, maxX), z: randomInt(minZ, maxZ) });
  }
  const client = args.sdk ? sdkClient(`session-${i}`) : jsonClient(`session-${i}`);
  clients.set(id, client);
  interest.open(client as never, id);
}

/**
 * A bot's chat or walk, made into an intent as the server makes a client's message into one. Intents of
 * another shape were compiled for apart from the server's, and the room's full collections threw that
 * code away (their shape died with each tick's intents), which the server's own do not.
 */
function act(id: string): void {
  if (randomInt(1, 3) === 1) {
    submit(id, { type: "player:chat", data: { message: "anyone for a trade?" } });
    return;
  }
  const at: Tile = world.peek(id).position;
  const x = at.x + randomInt(-WALK_RANGE, WALK_RANGE);
  const z = at.z + randomInt(-WALK_RANGE, WALK_RANGE);
  submit(id, { type: "player:move", data: { x, z } });
}

function submit(id: string, event: WorldEvent): void {
  const intent = toIntent(event);
  if (intent) world.submit(id, intent);
}

const stages = {
  "world step": [] as number[],
  replicate: [] as number[],
  publish: [] as number[],
  " views": [] as number[],
  " state patch": [] as number[],
  " events": [] as number[],
};
const gcPauses: number[] = [];
const gcPausesInTicks: number[] = [];
/** Each measured tick's start and end (performance.now()), to tell the pauses that fell inside one. */
const tickSpans: [number, number][] = [];
let measuring = false;
new PerformanceObserver((list) => {
  if (!measuring) return;
  for (const entry of list.getEntries()) {
    gcPauses.push(entry.duration);
    if (tickSpans.some(([start, end]) => entry.startTime >= start && entry.startTime < end))
      gcPausesInTicks.push(entry.duration);
  }
}).observe({ entryTypes: ["gc"] });

for (let tick = 0; tick < WARM_UP_TICKS + TICKS; tick++) {
  measuring = tick >= WARM_UP_TICKS;
  // Between ticks, as the room's timer would: garbage-collection entries are delivered then.
  await new Promise((resolve) => setImmediate(resolve));
  for (const id of clients.keys()) if (randomInt(1, ACT_EVERY_TICKS) === 1) act(id);
  const started = performance.now();
  const report = world.step();
  const stepped = performance.now();
  interest.applyTick(report, new Set(report.changedEntities));
  const replicated = performance.now();
  let viewed = 0;
  let patched = 0;
  let delivered = 0;
  const publish = (slab: WriteSlab) => {
    interest.updateAll(sendUpdate);
    viewed = performance.now();
    serializer?.applyPatches([...clients.values()], state);
    patched = performance.now();
    deliverEvents(report.events, interest, (id) => clients.get(id), slab);
    delivered = performance.now();
  };
  // SDK clients' frames are counted as Colyseus hands them over: they have no socket to batch writes to.
  if (args.sdk) publish(new WriteSlab());
  else void outbox.batch(clients.values(), publish).send();
  const published = performance.now();
  interest.forgetSharedUpdates();
  collectTickGarbage();
  if (measuring) {
    stages["world step"].push(stepped - started);
    stages.replicate.push(replicated - stepped);
    stages.publish.push(published - replicated);
    stages[" views"].push(viewed - replicated);
    stages[" state patch"].push(patched - viewed);
    stages[" events"].push(delivered - patched);
    tickSpans.push([started, published]);
  } else {
    written = 0;
  }
  progress("ticks", tick + 1, WARM_UP_TICKS + TICKS);
}

const row = (name: string, samples: readonly number[]) => {
  const { p50, p99, max } = percentiles(samples);
  return `${name.padEnd(14)}${p50.toFixed(2).padStart(8)}${p99.toFixed(2).padStart(8)}${max.toFixed(2).padStart(8)}`;
};
const totals = stages["world step"].map((ms, i) => ms + stages.replicate[i]! + stages.publish[i]!);
// Timed again: on a busy host the machine's speed moves within a run (see bench/README.md).
const referenceAfterMs = referenceWorkMs();
const youngSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
const youngMb = (youngSpace?.space_size ?? 0) / 2 ** 20;
console.log(
  `\nviews bench: ${PLAYERS} ${args.sdk ? "SDK state readers" : "/ws players"} ${args.crowd ? "crowded at the spawn point" : "scattered over the world"}, ${TICKS} ticks, no sockets, ` +
    `young generation ${youngMb.toFixed(0)} MB\n${machineSpeedLine(referenceMs, referenceAfterMs)}\n`,
);
console.log(`${"stage (ms)".padEnd(14)}${"p50".padStart(8)}${"p99".padStart(8)}${"max".padStart(8)}`);
for (const [name, samples] of Object.entries(stages)) console.log(row(name, samples));
console.log(row("tick", totals));
console.log(row("gc pause", gcPauses));
const tiles = new Set(
  [...clients.keys()].map((id) => {
    const { x, z } = world.peek(id).position;
    return `${x},${z}`;
  }),
);
const perTile = new Map<string, number>();
for (const id of clients.keys()) {
  const { x, z } = world.peek(id).position;
  perTile.set(`${x},${z}`, (perTile.get(`${x},${z}`) ?? 0) + 1);
}
console.log(
  `the players stand on ${tiles.size} tiles at the end, at most ${Math.max(...perTile.values())} on one, ${[...perTile.values()].filter((n) => n >= 10).length} tiles with 10 or more`,
);
const sum = (samples: readonly number[]) => samples.reduce((total, ms) => total + ms, 0);
console.log(
  `\ngarbage collection: ${sum(gcPauses).toFixed(0)} ms in ${gcPauses.length} pauses over ${TICKS} ticks, ` +
    `${sum(gcPausesInTicks).toFixed(0)} ms of it in ${gcPausesInTicks.length} within ticks; ` +
    `${(written / TICKS / PLAYERS).toFixed(0)} B sent per player per tick`,
);
