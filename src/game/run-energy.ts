// Run energy: running spends it, walking and standing still bring it back. RuneScape's rates, kept in
// hundredths of a percent so the arithmetic stays whole. This world weighs nothing a player carries
// and has no agility skill, so the rates are those of an unburdened player at agility 1: a full bar
// runs 150 ticks (300 tiles, 90 s) and fills again in 1,250 (12.5 minutes).
import type { CharacterState } from "./character-state.js";

export const RUN_ENERGY_MAX = 10_000;
export const RUN_DRAIN_PER_TICK = 67;
export const RUN_RESTORE_PER_TICK = 8;

/** A character's run energy; none stored means a full bar. */
export function runEnergy(character: Pick<CharacterState, "runEnergy">): number {
  return character.runEnergy ?? RUN_ENERGY_MAX;
}

/** The energy after a tick in which the player ran (`ran`) or did not. */
export function energyAfterTick(energy: number, ran: boolean): number {
  return ran
    ? Math.max(0, energy - RUN_DRAIN_PER_TICK)
    : Math.min(RUN_ENERGY_MAX, energy + RUN_RESTORE_PER_TICK);
}

/** What a player is shown: a whole percent, as RuneScape's run orb shows it. */
export function runEnergyPercent(energy: number): number {
  return Math.floor(energy / 100);
}
