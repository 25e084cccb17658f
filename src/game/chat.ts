// Chat input: plain messages and the contract's admin commands. Who may run a command is the
// room's decision (it knows the session's admin flag); this module only reads the text.
import { type GameError, gameError } from "./errors.js";
import {
  ANNOUNCE_USAGE,
  MODERATION_COMMANDS,
  MODERATION_USAGE,
  type ModerationOrder,
  parseModeration,
} from "./moderation.js";
import { MAX_STACK } from "./types.js";
import type { ChatMessage } from "./world-types.js";

export const MAX_CHAT_LENGTH = 200;

/**
 * Who server notices come from. No character may take this name (in any case): its lines would pass
 * for the server's wherever a client shows the speaker's name.
 */
export const SERVER_SPEAKER = { id: "server", name: "Server" } as const;

export function isServerName(name: string): boolean {
  return name.toLowerCase() === SERVER_SPEAKER.name.toLowerCase();
}

/** A line the server says to a player, as a chat message from SERVER_SPEAKER. */
export function serverNotice(message: string, timestamp: number): ChatMessage {
  return { fromPlayerId: SERVER_SPEAKER.id, fromPlayerName: SERVER_SPEAKER.name, message, timestamp };
}

export type ChatInput =
  | { kind: "say"; text: string }
  | { kind: "admin"; code: string }
  | { kind: "give"; itemId: string; quantity: number }
  | { kind: "teleport"; x: number; z: number }
  | { kind: "heal" }
  | { kind: "help" }
  | { kind: "moderate"; order: ModerationOrder }
  | { kind: "announce"; text: string };

/**
 * Control characters, line breaks and text-direction characters (Unicode's Bidi_Control: overrides,
 * isolates and marks): a line holding them could show as a line of someone else's (a server notice
 * after a line break) or read backwards, and the interlinear annotation marks, between which a client
 * may hide text. Unpaired surrogates too, which are no character at all: an SDK
 * client (msgpack's UTF-8) would be sent U+FFFD where a /ws client gets the raw escape. Joiners inside
 * emoji are not among them.
 */
const FORGING_CHARACTERS = /[\p{Cc}\p{Cs}\p{Bidi_Control}\u2028\u2029\uFFF9-\uFFFB]/u;

/**
 * What shows nothing on its own: spaces of every kind, the invisible format characters (zero-width
 * ones), what Unicode says to draw as nothing (Hangul fillers, the combining grapheme joiner), the blank
 * braille pattern, and marks, which show only on a letter.
 */
const INVISIBLE = /[\p{Z}\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}\u2800\s]/gu;

/**
 * The most code points one character may be made of: the longest emoji (a kiss of two people with skin
 * tones) takes ten. Beyond, a "character" is a letter under a pile of combining marks, drawn over the
 * lines around it.
 */
export const MAX_CODE_POINTS_PER_CHARACTER = 10;

/** Printable ASCII with something to show: what most chat lines are. */
const PRINTABLE_ASCII = /^[\x21-\x7e][\x20-\x7e]*$/;

const characters = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * The trimmed message when it has 1..200 characters as people see them (an emoji, a flag or a letter
 * with its accent is one), one of them at least visible: a line of zero-width spaces would be an empty
 * line that passed as one.
 */
export function chatText(message: string): string | GameError {
  const text = message.trim();
  // Most lines: a code unit a character, all shown, none forging (and segmenting costs 10 µs a line).
  if (PRINTABLE_ASCII.test(text) && text.length <= MAX_CHAT_LENGTH) return text;
  let count = 0;
  for (const { segment } of characters.segment(text)) {
    count++;
    if (count > MAX_CHAT_LENGTH) break;
    if (segment.length > MAX_CODE_POINTS_PER_CHARACTER && [...segment].length > MAX_CODE_POINTS_PER_CHARACTER)
      return gameError(
        "bad_request",
        `A chat message cannot hold a character of more than ${MAX_CODE_POINTS_PER_CHARACTER} code points.`,
      );
  }
  if (count === 0 || count > MAX_CHAT_LENGTH || text.replace(INVISIBLE, "") === "") {
    return gameError("bad_request", `A chat message has 1 to ${MAX_CHAT_LENGTH} characters.`);
  }
  if (FORGING_CHARACTERS.test(text)) {
    return gameError("bad_request", "A chat message cannot hold control or text-direction characters.");
  }
  return text;
}

const INTEGER = /^-?\d+$/;

function usage(command: string): GameError {
  return gameError("bad_request", `Usage: ${command}`);
}

/** The commands a chat line may carry, as the protocol writes them. */
export const CHAT_COMMANDS = ["/help", "/admin", "/give", "/tp", "/heal", ...MODERATION_COMMANDS] as const;

/** The answer to `/help`: the commands the session may run now, and how the others are enabled. */
export function chatHelp(isAdmin: boolean): string {
  const adminCommands = `/give <itemId> [quantity], /tp <x> <z>, /heal, ${MODERATION_USAGE}`;
  return isAdmin
    ? `Commands: /help; as an admin, ${adminCommands}. A line starting with / is never said aloud.`
    : `Commands: /help. With the server's admin code, /admin <code> enables ${adminCommands}. A line starting with / is never said aloud.`;
}

/**
 * Reads `/help`, `/admin <code>`, `/give <itemId> [quantity]`, `/tp <x> <z>`, `/heal` and the moderation
 * commands (see parseModeration), in any case; any other line
 * starting with `/` is an unknown command, never said aloud: a mistyped `/Admin <code>` would tell
 * everyone in view the code. Anything else is said aloud.
 */
export function parseChat(message: string): ChatInput | GameError {
  const text = chatText(message);
  if (typeof text !== "string") return text;
  if (!text.startsWith("/")) return { kind: "say", text };
  const [word = "", ...args] = text.split(/\s+/);
  const command = word.toLowerCase();
  switch (command) {
    case "/help":
      return { kind: "help" };
    case "/admin":
      return args.length === 1 ? { kind: "admin", code: args[0]! } : usage("/admin <code>");
    case "/give": {
      const [itemId, quantityText = "1"] = args;
      const quantity = Number(quantityText);
      const valid =
        itemId && args.length <= 2 && INTEGER.test(quantityText) && quantity >= 1 && quantity <= MAX_STACK;
      return valid ? { kind: "give", itemId, quantity } : usage("/give <itemId> [quantity]");
    }
    case "/tp": {
      const [x = "", z = ""] = args;
      return args.length === 2 && INTEGER.test(x) && INTEGER.test(z)
        ? { kind: "teleport", x: Number(x), z: Number(z) }
        : usage("/tp <x> <z>");
    }
    case "/heal":
      return args.length === 0 ? { kind: "heal" } : usage("/heal");
    case "/kick":
    case "/mute":
    case "/unmute":
    case "/ban":
    case "/unban": {
      const order = parseModeration(command.slice(1) as ModerationOrder["action"], args);
      return "code" in order ? order : { kind: "moderate", order };
    }
    case "/announce": {
      // The line as typed after the command: its spacing is the admin's.
      const announced = text.slice(word.length).trim();
      return announced ? { kind: "announce", text: announced } : usage(ANNOUNCE_USAGE);
    }
    default:
      // Only the word is repeated, and cut short: the rest of the line may be a code meant for /admin.
      return gameError(
        "unknown_command",
        `There is no command ${[...word].slice(0, 20).join("")}: /help lists them. A line starting with / is never said aloud.`,
      );
  }
}
