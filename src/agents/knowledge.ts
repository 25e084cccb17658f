// What an agent was sent, and nothing else: its latest player:sync, the entities its world:updates
// listed, and the combat and energy events that concern it. The providers, the actions' checks and
// the planners all read this one record.
import type { PlayerSync, WorldEntity } from "../game/world-types.js";
import type { WorldKnowledge } from "./brain.js";

/** A combat:hit this recent (dealt or taken) keeps the agent "in combat". */
export const IN_COMBAT_MS = 10_000;

export interface AgentKnowledge {
  agentId: string;
  characterId: string;
  name: string;
  /** In the world, its character's sync received. */
  online: boolean;
  sync: PlayerSync | undefined;
  /** Its own entity as last seen: position and health fresher than the last sync. */
  self: WorldEntity | undefined;
  /** Every other entity in view. */
  entities: readonly WorldEntity[];
  /** Run energy (0..100) from its sync and player:energy events. */
  runEnergy: number | undefined;
  /** When a combat:hit last named it, attacker or target (ms since the epoch). */
  lastCombatAt: number | undefined;
  /** The action under way (its interface name), or null. */
  currentAction: string | null;
  now: number;
}

/** What an action or planner works from: the agent's knowledge and the map and data any player has. */
export interface AgentContext {
  know: AgentKnowledge;
  world: WorldKnowledge;
}
