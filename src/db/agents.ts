import { eq } from "drizzle-orm";
import type { Database } from "./database.js";
import { agents, characters } from "./schema.js";

/** An agent as stored, with the name of the character it plays (which is the agent's name). */
export interface AgentRow {
  id: string;
  characterId: string;
  name: string;
  /** Null for the agents the configuration starts: only admins control those. */
  ownerAccountId: string | null;
  /** The agent's goal as src/agents stores it (JSON), or null. */
  goal: unknown;
  goalsPaused: boolean;
}

export class AgentRepository {
  constructor(private readonly db: Database) {}

  all(): Promise<AgentRow[]> {
    return this.db
      .select({
        id: agents.id,
        characterId: agents.characterId,
        name: characters.name,
        ownerAccountId: agents.ownerAccountId,
        goal: agents.goal,
        goalsPaused: agents.goalsPaused,
      })
      .from(agents)
      .innerJoin(characters, eq(characters.id, agents.characterId));
  }

  async insert(row: AgentRow): Promise<void> {
    const { id, characterId, ownerAccountId, goal, goalsPaused } = row;
    await this.db.insert(agents).values({ id, characterId, ownerAccountId, goal, goalsPaused });
  }

  async saveControl({ id, goal, goalsPaused }: Pick<AgentRow, "id" | "goal" | "goalsPaused">): Promise<void> {
    await this.db.update(agents).set({ goal, goalsPaused }).where(eq(agents.id, id));
  }

  /** Forgets the agent; its character stays, with everything it holds. */
  async delete(id: string): Promise<void> {
    await this.db.delete(agents).where(eq(agents.id, id));
  }
}
