import { and, asc, eq, lt, sql } from "drizzle-orm";
import type { CharacterState } from "../game/types.js";
import { AccountRepository } from "./accounts.js";
import { insertNewCharacter } from "./characters.js";
import type { Database } from "./database.js";
import { accounts, agents, characters } from "./schema.js";
import type { WriteFence } from "./world-lease.js";

/** An agent as stored, with the name of the character it plays (which is the agent's name). */
export interface AgentRow {
  id: string;
  characterId: string;
  name: string;
  /** Null for the agents the configuration starts: only admins control those. */
  ownerAccountId: string | null;
  /** The client address (rate-limit key) that created it; null for the configured ones. */
  ownerAddress: string | null;
  /** The agent's goal as src/agents stores it (JSON), or null. */
  goal: unknown;
  goalsPaused: boolean;
}

/**
 * The stored agents. The agents run beside the world, as one set, and the world that loaded them is the
 * owner of their rows: every write is fenced by that world's lease (see WorldLease), so an agent left
 * running in a process whose world was replaced (taken for dead, or a request that reached it late)
 * cannot write over what the agents of the world that replaced it stored since, nor store an agent that
 * world has not loaded.
 */
export class AgentRepository {
  constructor(private readonly db: Database) {}

  all(): Promise<AgentRow[]> {
    return this.db
      .select({
        id: agents.id,
        characterId: agents.characterId,
        name: characters.name,
        ownerAccountId: agents.ownerAccountId,
        ownerAddress: agents.ownerAddress,
        goal: agents.goal,
        goalsPaused: agents.goalsPaused,
      })
      .from(agents)
      .innerJoin(characters, eq(characters.id, agents.characterId))
      .orderBy(asc(characters.createdAt), asc(characters.name));
  }

  async exists(id: string): Promise<boolean> {
    // PostgreSQL text holds no NUL byte, and refuses a query with one: such an id is unknown.
    if (id.includes("\0")) return false;
    const [row] = await this.db.select({ id: agents.id }).from(agents).where(eq(agents.id, id));
    return row !== undefined;
  }

  /**
   * Stores a new agent with its account (`agent:<id>`) and its character, all or nothing: NameTakenError
   * when the character's name is in use.
   */
  async create(
    row: Omit<AgentRow, "characterId" | "name">,
    character: CharacterState,
    fence: WriteFence,
  ): Promise<string> {
    const { id, ownerAccountId, ownerAddress, goal, goalsPaused } = row;
    await this.db.transaction(async (tx) => {
      await fence.check(tx);
      const account = await new AccountRepository(tx).findOrCreate(`agent:${id}`, "agent");
      await insertNewCharacter(tx, account.id, character);
      await tx
        .insert(agents)
        .values({ id, characterId: character.id, ownerAccountId, ownerAddress, goal, goalsPaused });
    });
    return character.id;
  }

  async saveControl(
    { id, goal, goalsPaused }: Pick<AgentRow, "id" | "goal" | "goalsPaused">,
    fence: WriteFence,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await fence.check(tx);
      await tx.update(agents).set({ goal, goalsPaused }).where(eq(agents.id, id));
    });
  }

  /** The agents whose owner is an anonymous account not seen for `seconds` (by the database's clock). */
  async ofAbsentAnonymousOwners(seconds: number): Promise<string[]> {
    const rows = await this.db
      .select({ id: agents.id })
      .from(agents)
      .innerJoin(accounts, eq(accounts.id, agents.ownerAccountId))
      .where(
        and(
          eq(accounts.kind, "anonymous"),
          lt(accounts.lastSeenAt, sql`now() - make_interval(secs => ${seconds})`),
        ),
      );
    return rows.map((row) => row.id);
  }

  /** Forgets the agent; its character stays, with everything it holds. */
  async delete(id: string, fence: WriteFence): Promise<void> {
    await this.db.transaction(async (tx) => {
      await fence.check(tx);
      await tx.delete(agents).where(eq(agents.id, id));
    });
  }
}
