// What the running WorldRoom knows better than the database. The REST API asks through this interface
// so that it does not depend on the room.
import type { AgentReply, AgentRequest } from "../agents/requests.js";
import type { PlayerSync } from "../game/world-types.js";

export interface WorldStatus {
  tick: number;
  playersOnline: number;
  entities: { players: number; npcs: number; items: number; resources: number };
}

/** The world's answer to a read of a player whose state is not durable within a short wait. */
export const NOT_DURABLE_YET = "not_durable_yet" as const;

export interface LiveWorld {
  /** The running world's counters, or undefined when no world is running. */
  status(): Promise<WorldStatus | undefined>;
  /**
   * An online player's state (CONTRACT's player:sync object) once durable, or undefined when offline and
   * its last session is written; 503 `unavailable` when the world cannot say within a short wait.
   */
  player(characterId: string): Promise<PlayerSync | undefined>;
  /** Tells the world a stored character's new name, so an online player shows it. */
  renamed(characterId: string, name: string): Promise<void>;
  /** Answers a request of the agent endpoints where the agents run: beside the world (opened if need be). */
  agents(request: AgentRequest): Promise<AgentReply>;
}
