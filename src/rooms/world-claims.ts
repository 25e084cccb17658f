// A character plays in one numbered world at a time: a login in another world has the world it last
// arrived in let it go first (its session replaced, its state written), as a second login in the same
// world takes the player over.
import { matchMaker, ServerError } from "@colyseus/core";
import type { WorldOpening } from "../db/characters.js";
import type { WorldLeases } from "../db/world-lease.js";
import type { Release, WorldPort } from "../ports/world-port.js";
import { findWorld, listWorlds } from "./world-listing.js";

/**
 * How long a login waits for the other world to let its character go: its departure is one write, but
 * it may queue behind a tick's (the same wait as a login's for its last session's write).
 */
const RELEASE_WAIT_MS = 10_000;

/**
 * Has the world opening the character last arrived in let it go, when it runs: the trades that ended
 * there unheard by the player (see Release). One that does not run
 * any more, or whose process is found gone, may still write the character: a process stalled, or cut
 * off from Redis, runs on under its lease until another opening of its world takes it. So that
 * opening's lease is revoked first (see WorldLease.revoke: it waits for the opening's transactions under
 * way, and nothing of it commits after). One that does not answer otherwise, or whose player is in a
 * fight (leaving would escape it), refuses the login.
 */
export async function releaseFromWorld(
  opening: WorldOpening,
  characterId: string,
  leases: Pick<WorldLeases, "revoke">,
): Promise<readonly string[]> {
  const { world } = opening;
  const listing = await findWorld(world);
  if (!listing) return fence(opening, leases);
  let answer: Release;
  try {
    answer = await matchMaker.remoteRoomCall<WorldPort>(
      listing.roomId,
      "releaseCharacter",
      [characterId],
      RELEASE_WAIT_MS,
    );
  } catch (error) {
    const alive = await matchMaker.healthCheckProcessId(listing.processId).catch(() => true);
    if (!alive) return fence(opening, leases);
    throw new ServerError(
      503,
      `world ${world}, where this character plays, did not let it go; retry shortly`,
      {
        cause: error,
      },
    );
  }
  if (answer === "in_combat")
    throw new ServerError(
      409,
      `this character is in a fight in world ${world}: log in there, or here once the fight is over`,
    );
  // A process of the version before answered "released", with no trades (during a rolling deploy).
  return typeof answer === "object" ? answer.tradesEnded : [];
}

/**
 * Ends the right to write of the opening, unless a later one of its world already did (or none was
 * recorded). Its trades ended with it, for the player's partners as for the player.
 */
async function fence(
  { world, epoch }: WorldOpening,
  leases: Pick<WorldLeases, "revoke">,
): Promise<readonly string[]> {
  if (epoch !== null) await leases.revoke(epoch, world);
  return [];
}

/** Whether a session plays the character in a running world other than `world` (asked of each). */
export async function playsInAnotherWorld(world: number, characterId: string): Promise<boolean> {
  for (const [id, listing] of await listWorlds()) {
    if (id === world) continue;
    const plays = await matchMaker
      .remoteRoomCall<WorldPort>(listing.roomId, "plays", [characterId])
      .catch(() => false);
    if (plays) return true;
  }
  return false;
}

/**
 * The world where a session of the identity holds a seat (as `characterId` when named), dropped or
 * not: a login of its own takes that seat over rather than adding a player (asked of each world).
 */
export async function worldHoldingSeat(
  subject: string,
  characterId: string | undefined,
): Promise<number | undefined> {
  for (const [id, listing] of await listWorlds()) {
    const holds = await matchMaker
      .remoteRoomCall<WorldPort>(listing.roomId, "holdsSeat", [subject, characterId ?? null])
      .catch(() => false);
    if (holds) return id;
  }
  return undefined;
}
