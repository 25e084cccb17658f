// What planning an intent gives (see world-intents.ts), and the plans several kinds of intent share.
import { type GameError, isGameError } from "./errors.js";
import { firemakingRecipeFor, firePlaceProblem } from "./world-actions.js";
import type { PlayerAction, PlayerEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";

/** The change an accepted intent makes; one that can still fail (no path) reports it itself. */
export type Change = () => void;
export type Plan = Change | GameError;

/** Starts the player on `action` (none: it stops), where it stands. */
export function start(player: PlayerEntity, action: PlayerAction | undefined): Change {
  return () => {
    player.action = action;
    player.path = [];
  };
}

/** Light logs where the player stands. */
export function planLight(state: WorldState, player: PlayerEntity, logItemId: string): Plan {
  const recipe = firemakingRecipeFor(state, player, logItemId);
  if (isGameError(recipe)) return recipe;
  return firePlaceProblem(state, player) ?? start(player, { kind: "light_fire", logItemId });
}
