// Bot players for bench/world.ts: each one is a /ws JSON client that an admin teleport scatters over
// the world, then walks, chats, chops trees and fights whatever monster it sees.
import { readFileSync } from "node:fs";
import { WebSocket } from "ws";

interface Area {
  bounds: { minX: number; minZ: number; maxX: number; maxZ: number };
  spawnPoint: { x: number; z: number };
}

interface Tile {
  x: number;
  z: number;
}

/** A /ws frame from the server. */
interface Incoming {
  event: string;
  data: unknown;
}

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

function distance(a: Tile, b: Tile): number {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.z - b.z));
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

export interface BotOptions {
  url: string;
  adminCode: string;
  /** Scatter over every area (true), or stay in the crowd at the starting spawn point. */
  scatter: boolean;
}

export class Bot {
  id = "";
  /** Joined (first player:sync) and, when scattering, teleported to its spot. */
  placed = false;
  private readonly ws: WebSocket;
  private position: Tile = { x: 0, z: 0 };
  private teleportTarget: Tile | undefined;
  private readonly trees = new Map<string, Tile>();
  private readonly monsters = new Map<string, Tile>();
  private nextActAt = 0;

  constructor(
    private readonly name: number,
    private readonly options: BotOptions,
    onJoined: (bot: Bot) => void,
    onFailed: (error: Error) => void,
  ) {
    this.ws = new WebSocket(options.url);
    this.ws.on("error", onFailed);
    this.ws.on("message", (data: Buffer) => {
      traffic.bytes += data.length;
      traffic.frames++;
      const first = !this.id;
      this.receive(JSON.parse(data.toString()));
      if (first && this.id) onJoined(this);
    });
  }

  /** Called often; acts every 2 to 4 seconds. */
  act(now: number): void {
    if (!this.placed || now < this.nextActAt || this.ws.readyState !== WebSocket.OPEN) return;
    this.nextActAt = now + randomInt(2000, 4000);
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

  close(): void {
    this.ws.close(1000);
  }

  private send(event: string, data: unknown): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ event, data }));
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
        const update = data as { added: EntityDelta[]; updated: EntityDelta[]; removed: string[] };
        for (const entity of [...update.added, ...update.updated]) this.see(entity);
        for (const id of update.removed) {
          this.trees.delete(id);
          this.monsters.delete(id);
        }
        return;
      }
    }
  }

  private see(entity: EntityDelta): void {
    if (entity.id === this.id) {
      this.position = entity.position;
      if (this.teleportTarget && distance(entity.position, this.teleportTarget) === 0) this.placed = true;
    } else if (entity.kind === "resource" && entity.type === "tree") {
      this.trees.set(entity.id, entity.position);
    } else if (entity.kind === "npc" && entity.maxHealth !== undefined) {
      this.monsters.set(entity.id, entity.position);
    }
  }
}
