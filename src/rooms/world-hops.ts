// `player:hop`: when a /ws player may move to another numbered world.
import type { Config } from "../config/config.js";
import type { Refusal } from "../protocol/messages.js";
import { chooseWorld, isKnownWorld, unknownWorld } from "./world-choice.js";

export interface HopRequest {
  from: number;
  to: number;
  /** A monster fights the player: leaving now would escape the fight, as logging out does not. */
  inCombat: () => boolean;
  /** In a started trade, which a hop would end behind the partner's back. */
  trading: () => boolean;
  /** An SDK client hops by leaving and joining with the `world` option: the room cannot move it. */
  sdk: boolean;
}

/** Why a hop is refused, or undefined when the player may go. */
export async function hopRefusal(
  config: Pick<Config, "WORLDS" | "WORLD_CAPACITY">,
  { from, to, inCombat, trading, sdk }: HopRequest,
): Promise<Refusal | undefined> {
  if (!isKnownWorld(config, to)) {
    const { code, message } = unknownWorld(config);
    return { code, message };
  }
  if (to === from) return { code: "same_world", message: `you are in world ${to} already` };
  if (sdk)
    return {
      code: "bad_request",
      message: "an SDK client hops by leaving the room and joining it with the option world",
    };
  const busy = busyRefusal(inCombat, trading);
  if (busy) return busy;
  const choice = await chooseWorld(config, to);
  if ("refusal" in choice) return { code: choice.refusal.code, message: choice.refusal.message };
  // Asked again: a monster may have attacked, or a trade begun, while the worlds were looked up.
  return busyRefusal(inCombat, trading);
}

function busyRefusal(inCombat: () => boolean, trading: () => boolean): Refusal | undefined {
  if (inCombat()) return { code: "in_combat", message: "you cannot change worlds during a fight" };
  if (trading()) return { code: "trading", message: "finish or cancel your trade before changing worlds" };
  return undefined;
}
