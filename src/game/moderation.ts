// An admin's moderation commands, read from chat: /kick, /mute, /unmute, /ban and /unban a character
// by name, and /announce to every player. What they do is the rooms' (a mute and a ban are the
// account's, kept in the database).
import { CHARACTER_NAME } from "./character-names.js";
import { type GameError, gameError } from "./errors.js";

/** The longest mute or ban one command gives: a year. */
export const MAX_MODERATION_MINUTES = 525_600;

export type ModerationOrder =
  | { action: "kick" | "unmute" | "unban"; name: string }
  | { action: "mute" | "ban"; name: string; minutes: number };

export type ModerationAction = ModerationOrder["action"];

export const MODERATION_COMMANDS = ["/kick", "/mute", "/unmute", "/ban", "/unban", "/announce"] as const;

const USAGE: Record<ModerationAction, string> = {
  kick: "/kick <name>",
  mute: "/mute <name> <minutes>",
  unmute: "/unmute <name>",
  ban: "/ban <name> <minutes>",
  unban: "/unban <name>",
};

export const ANNOUNCE_USAGE = "/announce <message>";

export const MODERATION_USAGE = [...Object.values(USAGE), ANNOUNCE_USAGE].join(", ");

const MINUTES = /^\d{1,6}$/;

/** Reads a moderation command's words (the command without its slash, and what follows it). */
export function parseModeration(
  action: ModerationAction,
  args: readonly string[],
): ModerationOrder | GameError {
  const usage = gameError("bad_request", `Usage: ${USAGE[action]}`);
  if (action === "mute" || action === "ban") {
    const minutesText = args.at(-1) ?? "";
    const minutes = Number(minutesText);
    const name = args.slice(0, -1).join(" ");
    if (!CHARACTER_NAME.test(name) || !MINUTES.test(minutesText)) return usage;
    if (minutes < 1 || minutes > MAX_MODERATION_MINUTES)
      return gameError("bad_request", `A ${action} lasts 1 to ${MAX_MODERATION_MINUTES} minutes (a year).`);
    return { action, name, minutes };
  }
  const name = args.join(" ");
  return CHARACTER_NAME.test(name) ? { action, name } : usage;
}

/** "3 minutes", "1 minute": how long is left of a mute or ban, rounded up. */
export function minutesLeft(until: number, now: number): string {
  const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** Why a muted player's chat line is refused. */
export function mutedRefusal(until: number, now: number): GameError {
  return gameError("muted", `An admin muted you: you can chat again in ${minutesLeft(until, now)}.`);
}

/** "2030-01-02 03:04 UTC": until when a mute or ban lasts, to the minute. */
function minuteOf(until: number): string {
  return `${new Date(until).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Why a banned account is refused (a login, a REST request). */
export function bannedMessage(until: number): string {
  return `an admin banned this account from the world until ${minuteOf(until)}`;
}

/** Why a muted account's message to its agent is refused: an agent would say it in chat. */
export function mutedOwnerMessage(until: number): string {
  return `an admin muted this account until ${minuteOf(until)}: its agents do not speak for it meanwhile`;
}
