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

/** One numbered world as GET /api/v1/worlds shows it. */
export interface WorldSummary {
  id: number;
  playersOnline: number;
  capacity: number;
  full: boolean;
}

export interface LiveWorld {
  /** The numbered world's counters (world 1 by default), or undefined when it is not running. */
  status(world?: number): Promise<WorldStatus | undefined>;
  /** Worlds 1..WORLDS, with how many play in each. */
  worlds(count: number, capacity: number): Promise<WorldSummary[]>;
  /** The numbered world the character plays in now, or undefined when it plays in none. */
  worldOf(characterId: string): Promise<number | undefined>;
  /**
   * An online player's state (the protocol's player:sync object) once durable, or undefined when offline and
   * its last session is written; 503 `unavailable` when its world cannot say within a short wait.
   */
  player(characterId: string): Promise<PlayerSync | undefined>;
  /** Tells the worlds a stored character's new name, so an online player shows it. */
  renamed(characterId: string, name: string): Promise<void>;
  /**
   * Answers a request of the agent endpoints where the agents run: each beside its world. A list joins
   * every running world's, a new agent is made in its world (opened if need be), and a request about
   * one agent is answered by the world it plays in.
   */
  agents(request: AgentRequest): Promise<AgentReply>;
}
