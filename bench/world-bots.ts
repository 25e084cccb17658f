// Bot players for bench/world.ts: each one is a /ws JSON client that an admin teleport scatters over
// the world, then walks, chats, chops trees and fights whatever monster it sees.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Client, type Room } from "@colyseus/sdk";
import { WebSocket } from "ws";
import { chebyshev as distance } from "../src/game/tile.js";
import type { AreaDef, Tile } from "../src/game/types.js";
import type { WorldUpdate } from "../src/game/world-types.js";
import type { ViewUpdates } from "../src/protocol/messages.js";

type Area = Pick<AreaDef, "bounds" | "spawnPoint">;

/** A /ws frame from the server. */
interface Incoming {
  event: string;
  data: unknown;
}

/** What a bot reads of an entity, from a world:update or (SDK bots reading the state) the state. */
interface EntityDelta {
  id: string;
  kind: string;
  type: string;
  position: Tile;
  maxHealth?: number;
}

const AREAS: Area[] = JSON.parse(
  readFileSync(new URL("../manifests/world-areas.json", import.meta.url), "utf8"),
);
/** Tiles a walk goes at most, in each direction. */
const WALK_RANGE = 8;

function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

function randomTile(): Tile {
  const { bounds } = AREAS[randomInt(0, AREAS.length - 1)]!;
  return { x: randomInt(bounds.minX, bounds.maxX), z: randomInt(bounds.minZ, bounds.maxZ) };
}

function nearest(from: Tile, candidates: Map<string, Tile>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const [id, tile] of candidates) {
    const d = distance(from, tile);
    if (d < bestDistance) [best, bestDistance] = [id, d];
  }
  return best;
}

/** Bytes and frames all bots received, reset by the bench at the start of a measurement. */
export const traffic = { bytes: 0, frames: 0 };

/** One probe's move: when it was sent, and when and in which tick's update its player was seen stepping. */
export interface ProbeSample {
  /** Wall-clock milliseconds (performance.timeOrigin + now: comparable with the server's, same machine). */
  sentAt: number;
  arrivedAt: number;
  tick: number;
}

/** The probes' samples, kept while `recording` (the bench turns it on for the measured seconds). */
export const probes = { recording: false, samples: [] as ProbeSample[] };

/** Milliseconds a probe waits between moves, and gives up on one (an unwalkable tile) after. */
const PROBE_EVERY_MS = 1500;
const PROBE_GIVE_UP_MS = 5000;

const wallClock = () => performance.timeOrigin + performance.now();

export interface BotOptions {
  /** The server's HTTP address; /ws bots connect to its /ws path, SDK bots join the room "world". */
  baseUrl: string;
  adminCode: string;
  /** Scatter over every area (true), or stay in the crowd at the starting spawn point. */
  scatter: boolean;
  transport: "ws" | "sdk";
  /** How SDK bots are sent their view (the room's join option). */
  updates: ViewUpdates;
  /** The numbered world to play in (`?world=` or the join option); the server's choice when absent. */
  world?: number;
  /**
   * A probe: instead of playing, it steps to a neighbouring tile every PROBE_EVERY_MS and times the
   * world:update that shows its first step (see `probes`).
   */
  probe?: boolean;
}

/** How a bot talks to the server: the /ws JSON channel, or the Colyseus SDK. */
interface Link {
  readonly open: boolean;
  send(event: string, data: unknown): void;
  close(): void;
  /** SDK bots see entities in their replicated state rather than in world:update events. */
  forEachEntity?(visit: (entity: EntityDelta) => void): void;
}

class WsLink implements Link {
  private readonly ws: WebSocket;

  constructor(
    baseUrl: string,
    world: number | undefined,
    receive: (frame: Incoming) => void,
    onFailed: (error: Error) => void,
  ) {
    this.ws = new WebSocket(
      `${baseUrl.replace(/^http/, "ws")}/ws${world === undefined ? "" : `?world=${world}`}`,
    );
    this.ws.on("error", onFailed);
    this.ws.on("message", (data: Buffer) => {
      traffic.bytes += data.length;
      traffic.frames++;
      receive(JSON.parse(data.toString()));
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(event: string, data: unknown): void {
    if (this.open) this.ws.send(JSON.stringify({ event, data }));
  }

  close(): void {
    this.ws.close(1000);
  }
}

interface SeenState {
  entities?: Map<
    string,
    { id: string; kind: string; type: string; x: number; z: number; maxHealth?: number }
  >;
}

class SdkLink implements Link {
  private room: Room | undefined;

  /** Bots that read the state see entities there; bots sent world:update read it as /ws bots do. */
  readonly forEachEntity?: (visit: (entity: EntityDelta) => void) => void;

  constructor(
    baseUrl: string,
    receive: (frame: Incoming) => void,
    onFailed: (error: Error) => void,
    private readonly updates: ViewUpdates,
    private readonly world: number | undefined,
  ) {
    this.join(baseUrl, receive).catch(onFailed);
    if (updates === "state") this.forEachEntity = (visit) => this.visitState(visit);
  }

  get open(): boolean {
    return this.room?.connection.isOpen ?? false;
  }

  send(event: string, data: unknown): void {
    if (this.open) this.room?.send(event, data);
  }

  close(): void {
    void this.room?.leave();
  }

  private visitState(visit: (entity: EntityDelta) => void): void {
    for (const entity of (this.room?.state as SeenState | undefined)?.entities?.values() ?? []) {
      visit({ ...entity, position: { x: entity.x, z: entity.z } });
    }
  }

  private async join(baseUrl: string, receive: (frame: Incoming) => void): Promise<void> {
    const signIn = await fetch(`${baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
    if (!signIn.ok) throw new Error(`anonymous sign-in: ${signIn.status}`);
    const sdk = new Client(baseUrl);
    sdk.auth.token = ((await signIn.json()) as { token: string }).token;
    const room = await sdk.joinOrCreate("world", {
      updates: this.updates,
      ...(this.world !== undefined && { world: this.world }),
    });
    this.room = room;
    (room.connection.transport as unknown as { ws: WebSocket }).ws.addEventListener("message", (event) => {
      traffic.bytes += (event.data as ArrayBuffer).byteLength;
      traffic.frames++;
    });
    room.onMessage("*", (event, data) => receive({ event: String(event), data }));
  }
}

export class Bot {
  id = "";
  /** Joined (first player:sync) and, when scattering, teleported to its spot. */
  placed = false;
  private readonly link: Link;
  private position: Tile = { x: 0, z: 0 };
  private teleportTarget: Tile | undefined;
  private readonly trees = new Map<string, Tile>();
  private readonly monsters = new Map<string, Tile>();
  private nextActAt = 0;
  /** A probe's move under way: where from, and when it was sent. */
  private probing: { from: Tile; sentAt: number } | undefined;

  constructor(
    private readonly name: number,
    private readonly options: BotOptions,
    onJoined: (bot: Bot) => void,
    onFailed: (error: Error) => void,
  ) {
    const receive = (frame: Incoming) => {
      const first = !this.id;
      this.receive(frame);
      if (first && this.id) onJoined(this);
    };
    this.link =
      options.transport === "sdk"
        ? new SdkLink(options.baseUrl, receive, onFailed, options.updates, options.world)
        : new WsLink(options.baseUrl, options.world, receive, onFailed);
  }

  /** Called often; acts every 2 to 4 seconds. */
  act(now: number): void {
    if (!this.placed || now < this.nextActAt || !this.link.open) return;
    if (this.options.probe) {
      this.probe(now);
      return;
    }
    this.nextActAt = now + randomInt(2000, 4000);
    if (this.link.forEachEntity) {
      this.trees.clear();
      this.monsters.clear();
      this.link.forEachEntity((entity) => this.see(entity));
    }
    const roll = Math.random();
    if (roll < 0.4) {
      const to = {
        x: this.position.x + randomInt(-WALK_RANGE, WALK_RANGE),
        z: this.position.z + randomInt(-WALK_RANGE, WALK_RANGE),
      };
      this.send("player:move", { ...to, run: Math.random() < 0.3 });
    } else if (roll < 0.6) {
      this.send("player:chat", { message: `bot ${this.name} says hello` });
    } else if (roll < 0.8) {
      const tree = nearest(this.position, this.trees);
      if (tree) this.send("player:action", { action: "chop", targetId: tree });
    } else {
      const monster = nearest(this.position, this.monsters);
      if (monster) this.send("player:action", { action: "attack", targetId: monster });
    }
  }

  /** Whether the bot stands where it was teleported (SDK bots read their own entity from the state). */
  get arrived(): boolean {
    if (!this.placed && this.link.forEachEntity) this.link.forEachEntity((entity) => this.see(entity));
    return this.placed;
  }

  close(): void {
    this.link.close();
  }

  /** Steps one tile (walking) in a random direction, unless the last step is still under way. */
  private probe(now: number): void {
    if (this.probing && wallClock() - this.probing.sentAt < PROBE_GIVE_UP_MS) return;
    this.nextActAt = now + PROBE_EVERY_MS;
    let dx = 0;
    let dz = 0;
    while (dx === 0 && dz === 0) [dx, dz] = [randomInt(-1, 1), randomInt(-1, 1)];
    this.probing = { from: this.position, sentAt: wallClock() };
    this.send("player:move", { x: this.position.x + dx, z: this.position.z + dz, run: false });
  }

  private send(event: string, data: unknown): void {
    this.link.send(event, data);
  }

  private teleport(): void {
    this.teleportTarget = randomTile();
    this.send("player:chat", { message: `/tp ${this.teleportTarget.x} ${this.teleportTarget.z}` });
  }

  private receive({ event, data }: Incoming): void {
    switch (event) {
      case "player:sync": {
        const sync = data as { id: string; position: Tile };
        this.position = sync.position;
        if (this.id) return;
        this.id = sync.id;
        if (!this.options.scatter) this.placed = true;
        else this.send("player:chat", { message: `/admin ${this.options.adminCode}` });
        return;
      }
      case "chat:message":
        if ((data as { fromPlayerId: string }).fromPlayerId === "server" && !this.placed) this.teleport();
        return;
      case "error": {
        // An unwalkable tile: try another one.
        const error = data as { event?: string; code: string };
        if (error.event === "player:chat" && error.code === "invalid_target" && !this.placed) this.teleport();
        return;
      }
      case "world:update": {
        const update = data as WorldUpdate;
        for (const entity of [...update.added, ...update.updated]) this.see(entity, update.tick);
        for (const id of update.removed) {
          this.trees.delete(id);
          this.monsters.delete(id);
        }
        return;
      }
    }
  }

  private see(entity: EntityDelta, tick?: number): void {
    if (entity.id === this.id) {
      this.position = entity.position;
      const probing = this.probing;
      // The move's first step, which shows it was taken: a blocked neighbour is reached in more than one.
      if (probing && tick !== undefined && distance(entity.position, probing.from) !== 0) {
        this.probing = undefined;
        if (probes.recording) probes.samples.push({ sentAt: probing.sentAt, arrivedAt: wallClock(), tick });
      }
      if (this.teleportTarget && distance(entity.position, this.teleportTarget) === 0) this.placed = true;
    } else if (entity.kind === "resource" && entity.type === "tree") {
      this.trees.set(entity.id, entity.position);
    } else if (entity.kind === "npc" && entity.maxHealth !== undefined) {
      this.monsters.set(entity.id, entity.position);
    }
  }
}
