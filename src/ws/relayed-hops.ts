// A relayed player's hop is carried out by the process holding its socket, not by the world's process
// it was relayed to: relaying the relay on would make the path one connection longer at every hop.
import type { RawData, WebSocket } from "ws";
import { CLOSE_HOP_HERE } from "../protocol/close-codes.js";
import type { Frame } from "./relay.js";

/** A relayed player's hop, handed back by the world's process to the one holding the connection. */
export interface RelayedHop {
  world: number;
  characterId: string;
  /** What the client sent from its hop request on, for the next world. */
  held: Frame[];
}

/** How long the frames after a hop request are held for its answer at most (a lost answer lets them go). */
const HOP_ANSWER_WAIT_MS = 10_000;

/**
 * The client's frames on their way to the world, held from a `player:hop` request until the world
 * answers it: a hop the world grants comes back here with them (CLOSE_HOP_HERE), so that the next world
 * is joined from this process instead of through one more relay; a refused one lets them go on.
 */
export class HopHold {
  private held: Frame[] | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: number,
    private readonly send: (frame: Frame) => void,
  ) {}

  /** A frame from the client: passed on, or held while a hop request waits for its answer. */
  up(frame: Frame): void {
    if (this.held) {
      if (this.held.length < this.limit) this.held.push(frame);
      return;
    }
    this.send(frame);
    if (!frame.isBinary && envelopeNaming(frame.data, HOP)?.event === HOP) {
      this.held = [];
      this.timer = setTimeout(() => this.release(), HOP_ANSWER_WAIT_MS).unref();
    }
  }

  /** A frame from the world: the refusal of the hop lets the held frames go on. */
  down(data: RawData, isBinary: boolean): void {
    if (!this.held || isBinary) return;
    const envelope = envelopeNaming(data, HOP);
    if (envelope?.event === "error" && envelope.data?.event === HOP) this.release();
  }

  /** What is held, no longer held. */
  take(): Frame[] {
    clearTimeout(this.timer);
    const held = this.held ?? [];
    this.held = undefined;
    return held;
  }

  private release(): void {
    for (const frame of this.take()) this.send(frame);
  }
}

const HOP = "player:hop";

/** The frame's envelope, when it is JSON that mentions `name` (a cheap test first: most frames do not). */
function envelopeNaming(
  data: RawData,
  name: string,
): { event?: unknown; data?: { event?: unknown } } | undefined {
  if (!Buffer.isBuffer(data) || !data.includes(name)) return undefined;
  try {
    return JSON.parse(data.toString());
  } catch {
    return undefined;
  }
}

/** The hop a world's process handed back with its close (`<world>:<character id>`), if it did. */
export function hopHandedBack(code: number, reason: Buffer): Omit<RelayedHop, "held"> | undefined {
  if (code !== CLOSE_HOP_HERE) return undefined;
  const [world, characterId] = reason.toString().split(":");
  return characterId ? { world: Number(world), characterId } : undefined;
}

/** The close with which a world's process hands a relayed player's hop back (see HopHold). */
export function handBackHop(upstreamSide: WebSocket, world: number, characterId: string): void {
  upstreamSide.close(CLOSE_HOP_HERE, `${world}:${characterId}`);
}
