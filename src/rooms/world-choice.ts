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

/**
 * The world where the login's identity holds a seat already (a session's, dropped or not, or a character
 * fighting on after its player left): taking that seat over adds no player there.
 */
export type HeldSeat = () => Promise<number | undefined>;

/**
 * The world a login may play in, or why none; a full world still takes back a player it holds a seat for.
 * A login naming no world goes back to the one holding its seat, where a character in a fight must stay
 * (asked of the worlds only when there are several). Read from the worlds' listings, this turns most
 * logins to a full world away early; the world itself holds its capacity exactly as each login joins
 * (see WorldSessions.admits).
 */
export async function chooseWorld(
  config: Pick<Config, "WORLDS" | "WORLD_CAPACITY">,
  asked: number | undefined,
  heldSeat?: HeldSeat,
): Promise<{ world: number } | { refusal: WorldRefusal }> {
  if (asked !== undefined && !isKnownWorld(config, asked)) return { refusal: unknownWorld(config) };
  const worlds = await summarizeWorlds(config.WORLDS, config.WORLD_CAPACITY);
  if (asked !== undefined) {
    const players = worlds[asked - 1]?.playersOnline ?? 0;
    if (players < config.WORLD_CAPACITY || (await heldSeat?.()) === asked) return { world: asked };
    return { refusal: worldFull(asked) };
  }
  const chosen =
    config.WORLDS > 1
      ? ((await heldSeat?.()) ?? leastFull(worlds))
      : (leastFull(worlds) ?? (await heldSeat?.()));
  return chosen === undefined ? { refusal: EVERY_WORLD_FULL } : { world: chosen };
}

/** As chooseWorld, a refusal thrown as the matchmaker's ServerError (for SDK joins). */
export async function admittingWorld(
  config: Pick<Config, "WORLDS" | "WORLD_CAPACITY">,
  asked: number | undefined,
  heldSeat?: HeldSeat,
): Promise<number> {
  const choice = await chooseWorld(config, asked, heldSeat);
  if (!("refusal" in choice)) return choice.world;
  const { code, status, message } = choice.refusal;
  throw code === "world_full" ? new WorldFullError(message) : new ServerError(status, message);
}

/** A join turned away because its world, or every world, is full: a /ws client is told `world_full`. */
export class WorldFullError extends ServerError {
  constructor(message: string) {
    super(503, message);
  }

  static of(world: number): WorldFullError {
    return new WorldFullError(worldFull(world).message);
  }
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
