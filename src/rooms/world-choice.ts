// Which numbered world a login plays in: the one it names, or the least full that is not full.
import { ServerError } from "@colyseus/core";
import type { Config } from "../config/config.js";
import { leastFull, summarizeWorlds } from "./world-listing.js";

/** Why a login gets no world: the one named does not exist or is full, or every world is full. */
export interface WorldRefusal {
  status: 400 | 503;
  code: "unknown_world" | "world_full";
  message: string;
}

/** What a login brings to the choice of its world beyond the world it asks for. */
export interface LoginSeats {
  /** Its seat in the world asked for is reserved already, and so counted in its players. */
  seated?: boolean;
  /**
   * The world where its identity holds a seat already (a dropped session's, kept for its return), asked
   * only when the login would be refused as full: taking that seat over adds no player there.
   */
  heldSeat?: () => Promise<number | undefined>;
}

/** The world a login may play in, or why none; a full world still takes back a player it holds a seat for. */
export async function chooseWorld(
  config: Pick<Config, "WORLDS" | "WORLD_CAPACITY">,
  asked: number | undefined,
  { seated = false, heldSeat }: LoginSeats = {},
): Promise<{ world: number } | { refusal: WorldRefusal }> {
  if (asked !== undefined && !isKnownWorld(config, asked)) return { refusal: unknownWorld(config) };
  const worlds = await summarizeWorlds(config.WORLDS, config.WORLD_CAPACITY);
  if (asked !== undefined) {
    const others = (worlds[asked - 1]?.playersOnline ?? 0) - (seated ? 1 : 0);
    if (others < config.WORLD_CAPACITY || (await heldSeat?.()) === asked) return { world: asked };
    return { refusal: worldFull(asked) };
  }
  const chosen = leastFull(worlds) ?? (await heldSeat?.());
  return chosen === undefined ? { refusal: EVERY_WORLD_FULL } : { world: chosen };
}

/** As chooseWorld, a refusal thrown as the matchmaker's ServerError (for SDK joins). */
export async function admittingWorld(
  config: Pick<Config, "WORLDS" | "WORLD_CAPACITY">,
  asked: number | undefined,
  seats: LoginSeats = {},
): Promise<number> {
  const choice = await chooseWorld(config, asked, seats);
  if ("refusal" in choice) throw new ServerError(choice.refusal.status, choice.refusal.message);
  return choice.world;
}

export function isKnownWorld(config: Pick<Config, "WORLDS">, world: unknown): world is number {
  return typeof world === "number" && Number.isInteger(world) && world >= 1 && world <= config.WORLDS;
}

/** Reads `?world=`: a world id, undefined when absent, or NaN when it is not a whole number. */
export function worldParameter(value: string | null): number | undefined {
  if (value === null || value === "") return undefined;
  return /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
}

export function unknownWorld(config: Pick<Config, "WORLDS">): WorldRefusal {
  return {
    status: 400,
    code: "unknown_world",
    message:
      config.WORLDS === 1
        ? "there is one world here: world 1"
        : `no such world: the worlds here are 1 to ${config.WORLDS}`,
  };
}

export function worldFull(world: number): WorldRefusal {
  return { status: 503, code: "world_full", message: `world ${world} is full; pick another or retry later` };
}

const EVERY_WORLD_FULL: WorldRefusal = {
  status: 503,
  code: "world_full",
  message: "every world is full; retry later",
};
