// Prayers in the world: switching them on and off, their drain, and the points' slow recharge.
import { equipmentBonuses } from "./combat.js";
import { type GameError, gameError } from "./errors.js";
import { drainOneTick, PRAYER_REGEN_TICKS, prayerPoints, prayerProblem, switchOn } from "./prayer.js";
import type { PlayerEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";
import type { Intent } from "./world-types.js";

export function planPrayer(
  state: WorldState,
  player: PlayerEntity,
  { prayerId, active }: Extract<Intent, { type: "pray" }>,
): (() => void) | GameError {
  const prayer = state.data.prayers.get(prayerId);
  if (!prayer) return gameError("not_found", `There is no prayer ${prayerId}.`);
  if (!active)
    return () =>
      state.setPrayers(
        player,
        player.prayers.filter((other) => other !== prayer),
      );
  const { character } = player;
  const problem = prayerProblem(prayer, character.skills.prayer.level, prayerPoints(character));
  return problem ?? (() => state.setPrayers(player, switchOn(player.prayers, prayer)));
}

/**
 * Active prayers drain their points, every one switched off when none are left. A point comes back for
 * each PRAYER_REGEN_TICKS in a row with no prayer on: counted per player, so a prayer switched off only
 * around the moment of a recharge earns nothing.
 */
export function tendPrayers(state: WorldState): void {
  for (const player of state.players.values()) {
    const { character } = player;
    const points = prayerPoints(character);
    if (player.prayers.length === 0) {
      if (points >= character.skills.prayer.level) continue;
      player.prayerRest += 1;
      if (player.prayerRest < PRAYER_REGEN_TICKS) continue;
      player.prayerRest = 0;
      state.setPrayerPoints(player, points + 1);
      continue;
    }
    player.prayerRest = 0;
    const bonus = equipmentBonuses(character.equipment, state.data.items).prayer;
    const drained = drainOneTick(points, player.prayerDrain, player.prayers, bonus);
    player.prayerDrain = drained.carried;
    if (drained.points === points) continue;
    state.setPrayerPoints(player, drained.points);
    if (drained.points === 0) {
      state.setPrayers(player, []);
      state.fail(player, gameError("no_prayer_points", "You have run out of prayer points."));
    }
  }
}
