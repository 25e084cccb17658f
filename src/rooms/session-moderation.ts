import { serverNotice } from "../game/chat.js";
import { minutesLeft } from "../game/moderation.js";
import type { World } from "../game/world.js";
import type { ModerationChange, ModerationReach } from "../ports/world-port.js";
import type { PlayerAuth } from "../ports/world-seats.js";
import { CLOSE_REMOVED } from "../protocol/close-codes.js";
import { playerOf, type WorldClient } from "./world-client.js";

/** What moderation reads of the world's sessions, and how it tells one (see WorldSessions). */
export interface ModeratedSessions {
  readonly world: World;
  /** The client currently playing each character. */
  readonly owners: ReadonlyMap<string, WorldClient>;
  /** Who played each character a fight keeps in the world after its session ended. */
  readonly lingering: ReadonlyMap<string, PlayerAuth>;
  /** Sends a player's client an event of its own (see WorldSessions.sendTo). */
  sendTo(playerId: string, event: string, data: unknown): boolean;
}

/**
 * An admin's moderation (see moderation.ts) of one world's sessions: the account's sessions are told their
 * mute's new end, or they (a kick: the character's) are closed with CLOSE_REMOVED, a kept seat given up; a
 * ban's end (an unban's none) is kept with their seats, for a login from memory; how many, and how many of
 * the characters concerned a fight keeps here with no session, this change's closing included (they leave
 * when it is over).
 */
export function moderateSessions(sessions: ModeratedSessions, change: ModerationChange): ModerationReach {
  const { world, owners } = sessions;
  const concerns = (auth: PlayerAuth) =>
    "characterId" in change ? auth.characterId === change.characterId : auth.accountId === change.accountId;
  const concerned = [...owners.values()].filter((client) => concerns(playerOf(client)));
  const lingering = [...sessions.lingering].filter(
    ([characterId, auth]) => concerns(auth) && !owners.has(characterId) && world.has(characterId),
  );
  // A login taking its seat back from memory (the database down) meets the mute or ban as it is now,
  // the seat of a session a ban closes in a fight too: a fight keeps that auth (see WorldSessions.leave).
  const seats = [...concerned.map(playerOf), ...lingering.map(([, auth]) => auth)];
  if ("mutedUntil" in change) for (const auth of seats) auth.mutedUntil = change.mutedUntil;
  if ("bannedUntil" in change) for (const auth of seats) auth.bannedUntil = change.bannedUntil;
  // A session closed mid-fight leaves its character in the world until the fight is over (see WorldSessions.leave).
  const closedInFight =
    "remove" in change
      ? concerned.filter((client) => {
          const { characterId } = playerOf(client);
          return world.has(characterId) && world.inCombat(characterId);
        }).length
      : 0;
  for (const client of concerned) {
    if ("remove" in change) {
      if (client.userData) client.userData.removed = true;
      client.userData?.reconnection?.reject(new Error(change.remove));
      client.leave(CLOSE_REMOVED, change.remove);
      continue;
    }
    // An unban is no news to a session: only a mute's is told.
    if (!("mutedUntil" in change)) continue;
    const now = Date.now();
    const told =
      change.mutedUntil === null
        ? "An admin lifted your mute: you may chat again."
        : `An admin muted you for ${minutesLeft(change.mutedUntil, now)}.`;
    sessions.sendTo(playerOf(client).characterId, "chat:message", serverNotice(told, now));
  }
  return { sessions: concerned.length, lingering: lingering.length + closedInFight };
}
