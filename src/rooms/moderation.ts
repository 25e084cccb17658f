// An admin's moderation commands carried out: a mute or a ban is the account's, kept in the database
// (a login reads it), and every running world is told at once, wherever its process is, so that a
// player in another world is muted or removed now rather than at its next login; an announcement
// reaches every player of every world.
import { matchMaker } from "@colyseus/core";
import { type ModerationOrder, minutesLeft } from "../game/moderation.js";
import type { Runtime } from "../ports/runtime.js";
import type { ModerationChange, WorldPort } from "../ports/world-port.js";
import type { Refusal } from "../protocol/messages.js";
import { listWorlds } from "./world-listing.js";

/**
 * Carries out the order: the admin's notice of what was done, or why nothing was (no such character, a
 * kick of a character in no world, worlds that could not be told).
 */
export async function moderate(
  runtime: Pick<Runtime, "accounts" | "characters" | "logger">,
  order: ModerationOrder,
  now = Date.now(),
): Promise<{ notice: string } | Refusal> {
  const character = await runtime.characters.named(order.name);
  if (!character) return { code: "not_found", message: `No character is named ${order.name}.` };
  const { id: characterId, accountId, name } = character;
  if (!accountId && order.action !== "kick")
    return { code: "invalid_target", message: `${name} belongs to no account: only /kick applies.` };
  const until = "minutes" in order ? new Date(now + order.minutes * 60_000) : null;
  let change: ModerationChange;
  switch (order.action) {
    case "mute":
    case "unmute":
      await runtime.accounts.muteUntil(accountId!, until);
      change = { accountId: accountId!, mutedUntil: until?.getTime() ?? null };
      break;
    case "ban":
    case "unban":
      await runtime.accounts.banUntil(accountId!, until);
      // The worlds keep it too, for a login they let in from memory while the database is down.
      change = until
        ? {
            accountId: accountId!,
            remove: "an admin banned this account from the world",
            bannedUntil: until.getTime(),
          }
        : { accountId: accountId!, bannedUntil: null };
      break;
    case "kick":
      change = { characterId, remove: "an admin removed this character from the world" };
      break;
  }
  const reached = await tellWorlds(change, runtime);
  const worlds = reached.sessions.join(", ");
  // Kept in a world by a fight after their sessions ended (a logout, or this very command): the fight is
  // not cut short, as at any logout.
  const fighting = reached.lingering.join(", ");
  const staying = `in a fight, they stay in world ${fighting} until it is over (a minute at most), then leave by themselves`;
  const lasting = until && minutesLeft(until.getTime(), now);
  switch (order.action) {
    case "mute":
      return { notice: `${name} is muted for ${lasting}${worlds && ` (in world ${worlds})`}.` };
    case "unmute":
      return { notice: `${name} may chat again${worlds && ` (in world ${worlds})`}.` };
    case "unban":
      return { notice: `${name} may log in again.` };
    case "ban":
      return {
        notice:
          `${name} is banned for ${lasting}${worlds && `, and was removed from world ${worlds}`}` +
          `${fighting && `; ${staying}`}.`,
      };
    default:
      // A kick.
      if (!worlds && !fighting) return { code: "not_found", message: `${name} is not in any world now.` };
      return {
        notice: `${name} ${worlds ? `was removed from world ${worlds}` : "had logged out"}${fighting && `; ${staying}`}; they may log in again.`,
      };
  }
}

/**
 * Has every running world apply the change: the ids of those where it applied to a session, and of those
 * where a fight keeps a character it concerns after its session ended (or as this change ends it).
 */
async function tellWorlds(
  change: ModerationChange,
  runtime: Pick<Runtime, "logger">,
): Promise<{ sessions: number[]; lingering: number[] }> {
  // The mute or ban is stored: a world that cannot be told has its player meet it at the next login.
  const answers = await askEveryWorld("moderate", [change], runtime);
  // A world of the version before answers how many sessions, a number (during a rolling deploy).
  const reaches = answers.map(([world, answer]) => ({
    world,
    ...(typeof answer === "number" ? { sessions: answer, lingering: 0 } : answer),
  }));
  return {
    sessions: reaches.filter((reach) => reach.sessions > 0).map((reach) => reach.world),
    lingering: reaches.filter((reach) => reach.lingering > 0).map((reach) => reach.world),
  };
}

/** Says the admin's line to every player of every running world, as a server notice. */
export async function announce(text: string, runtime: Pick<Runtime, "logger">): Promise<{ notice: string }> {
  const answers = await askEveryWorld("announce", [text], runtime);
  const worlds = answers.filter(([, sessions]) => sessions > 0).map(([world]) => world);
  return {
    notice: worlds.length > 0 ? `Announced in world ${worlds.join(", ")}.` : "No world has players now.",
  };
}

/**
 * Calls `method` of every running world, wherever its process is: each world's answer, by world id in
 * order. A world that does not answer is logged and left out.
 */
async function askEveryWorld<M extends "moderate" | "announce">(
  method: M,
  args: Parameters<WorldPort[M]>,
  runtime: Pick<Runtime, "logger">,
): Promise<[number, ReturnType<WorldPort[M]>][]> {
  const answers: [number, ReturnType<WorldPort[M]>][] = [];
  for (const [world, listing] of await listWorlds()) {
    const answer = await matchMaker
      .remoteRoomCall<WorldPort>(listing.roomId, method, args)
      .catch((error: unknown) => {
        runtime.logger.warn({ err: error, world, method }, "a world could not be told an admin's command");
        return undefined;
      });
    if (answer !== undefined) answers.push([world, answer as ReturnType<WorldPort[M]>]);
  }
  return answers.sort(([a], [b]) => a - b);
}
