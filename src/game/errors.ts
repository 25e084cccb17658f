import { MAX_PATH_LENGTH } from "./pathfinding.js";
import { BURY_TICKS, EAT_TICKS, INVENTORY_SLOTS } from "./types.js";

/** A refusal the player can see: `code` is stable snake_case, `message` is for humans. */
export interface GameError {
  code: GameErrorCode;
  message: string;
}

/** Every code the rules produce, with when. Clients branch on these. */
export const GAME_ERROR_CODES = {
  bad_request: "the request is malformed (empty or too long chat, bad quantity, unknown item id)",
  unknown_command:
    "a chat line starts with `/` but names no command (`/help`, `/admin`, `/give`, `/tp`, `/heal`, `/kick`, `/mute`, `/unmute`, `/ban`, `/unban`, `/announce`, in any case): it is not said aloud",
  muted: "an admin muted the player's account (`/mute`): its chat lines are refused until the mute ends",
  not_found:
    "the target entity, player, bank item, store item or prayer does not exist or is not visible to the player",
  invalid_slot:
    `the inventory slot is outside 0..${INVENTORY_SLOTS - 1} or empty, or the equipment slot is empty, ` +
    "or a trade put another item in the slot between the message and the tick that would have acted on it, " +
    "or the slot holds another item than the `itemId` the message named",
  invalid_target: "the target exists but this action cannot apply to it (chop a rock, eat a sword)",
  move_too_far: `the move target is more than ${MAX_PATH_LENGTH} tiles away (Chebyshev)`,
  no_path: `no walkable path of at most ${MAX_PATH_LENGTH} tiles reaches the target`,
  too_far:
    "the player is not within reach (bank booth, banker or shopkeeper) for an action that does not walk",
  inventory_full: "there is no room in the inventory (or the stack would pass the maximum)",
  bank_full: "the bank stack would pass the maximum quantity",
  no_prayer_points: "the player has no prayer points left to switch a prayer on with",
  out_of_stock: "the store has none of the item left until it restocks",
  not_enough_coins: "the player's coins do not pay for one of the item",
  level_too_low: "a skill level below the item's, resource's or recipe's requirement",
  no_tool: "the required tool (axe, pickaxe, fishing tool, tinderbox, hammer) is not carried",
  missing_materials:
    "a recipe's materials are not all carried (the tin for a bronze bar, the five bars for a platebody)",
  no_ammo: "a bow is wielded without arrows that fit it in the ammunition slot",
  depleted: "the resource is depleted until it respawns",
  busy: "the player is in a trade commit and cannot change the inventory",
  too_soon: `the player ate within the last ${EAT_TICKS} ticks, or buried bones within the last ${BURY_TICKS}: one at a time`,
  dead: "the target is dead",
  cannot_light_here: "a fire already burns on this tile, or the tile is in a town (a safe zone)",
} as const;

export type GameErrorCode = keyof typeof GAME_ERROR_CODES;

export function gameError(code: GameErrorCode, message: string): GameError {
  return { code, message };
}

export function isGameError(value: unknown): value is GameError {
  return typeof value === "object" && value !== null && "code" in value && "message" in value;
}
