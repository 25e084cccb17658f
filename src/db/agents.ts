import { and, asc, eq, isNotNull, lt, sql } from "drizzle-orm";
import type { CharacterState } from "../game/character-state.js";
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
  /**
   * The numbered world it plays in: its character's (characters.world, set when the agent is made; world 1
   * for an agent made before there were worlds).
   */
  world: number;
}

/** How many agents accounts may run, counted over every world: the configured agents are not counted. */
export interface AgentLimits {
  perAccount: number;
  /** How many agents may be started from one client address, whichever accounts asked. */
  perAddress: number;
  /** How many agents accounts may run in all. */
  maxOwned: number;
}

export class AgentLimitError extends Error {
  override name = "AgentLimitError";
}

/** The owned agents counted against the limits: the owner's, those of the address, all of them. */
export interface OwnedAgentCounts {
  ofOwner: number;
  fromAddress: number;
  owned: number;
}

/** Refuses one more owned agent when the counts so far leave it no room (`hasAddress`: its address counts). */
export function checkAgentLimits(
  { ofOwner, fromAddress, owned }: OwnedAgentCounts,
  { perAccount, perAddress, maxOwned }: AgentLimits,
  hasAddress: boolean,
): void {
  if (ofOwner >= perAccount) throw new AgentLimitError(`an account may run ${perAccount} agents at most`);
  if (hasAddress && fromAddress >= perAddress)
    throw new AgentLimitError(`one client address may start ${perAddress} agents at most`);
  if (owned >= maxOwned) throw new AgentLimitError(`this server runs ${maxOwned} agents of accounts at most`);
}

/** Held by each agent creation's transaction: creations on every process are counted one after another. */
const CREATION_LOCK = 0x61_67_6e_74; // "agnt"

/**
 * The stored agents. Each runs beside its world, and the world that loaded it is the owner of its row:
 * every write is fenced by that world's lease (see WorldLease), so an agent left running in a process
 * whose world was replaced (taken for dead, or a request that reached it late) cannot write over what
 * the world that replaced it stored since, nor store an agent that world has not loaded.
 */
export class AgentRepository {
  constructor(private readonly db: Database) {}

  /** The agents of one world, or (no world) of every world. */
  all(world?: number): Promise<AgentRow[]> {
    const agentWorld = sql<number>`coalesce(${characters.world}, 1)`;
    return this.db
      .select({
        id: agents.id,
        characterId: agents.characterId,
        name: characters.name,
        ownerAccountId: agents.ownerAccountId,
        ownerAddress: agents.ownerAddress,
        goal: agents.goal,
        goalsPaused: agents.goalsPaused,
        world: agentWorld,
      })
      .from(agents)
      .innerJoin(characters, eq(characters.id, agents.characterId))
      .where(world === undefined ? undefined : eq(agentWorld, world))
      .orderBy(asc(characters.createdAt), asc(characters.name));
  }

  async exists(id: string): Promise<boolean> {
    // PostgreSQL text holds no NUL byte, and refuses a query with one: such an id is unknown.
    if (id.includes("\0")) return false;
    const [row] = await this.db.select({ id: agents.id }).from(agents).where(eq(agents.id, id));
    return row !== undefined;
  }

  /**
   * Stores a new agent with its account (`agent:<id>`) and its character in its world, all or nothing:
   * NameTakenError when the character's name is in use, AgentLimitError when an owned agent would pass
   * the limits. Creations on every process take one lock in turn, so none counts before another's row.
   */
  async create(
    row: Omit<AgentRow, "characterId" | "name">,
    character: CharacterState,
    fence: WriteFence,
    limits: AgentLimits,
  ): Promise<string> {
    const { id, ownerAccountId, ownerAddress, goal, goalsPaused, world } = row;
    await this.db.transaction(async (tx) => {
      await fence.check(tx);
      if (ownerAccountId !== null) {
        await tx.execute(sql`select pg_advisory_xact_lock(${CREATION_LOCK})`);
        const [counts] = await tx
          .select({
            ofOwner: sql<number>`count(*) filter (where ${agents.ownerAccountId} = ${ownerAccountId})::int`,
            fromAddress: sql<number>`count(*) filter (where ${agents.ownerAddress} = ${ownerAddress ?? ""})::int`,
            owned: sql<number>`count(*)::int`,
          })
          .from(agents)
          .where(isNotNull(agents.ownerAccountId));
        checkAgentLimits(counts!, limits, ownerAddress !== null);
      }
      const account = await new AccountRepository(tx).findOrCreate(`agent:${id}`, "agent");
      await insertNewCharacter(tx, account.id, character, world);
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

  /**
   * Deletes the agent with its character and everything it holds, which frees its name. Its world may
   * still hold the character for a while (a fight keeps a leaving player): what it writes of it later is
   * left out (see writeCharacters). Trades it made stay on record without it.
   */
  async delete(id: string, fence: WriteFence): Promise<void> {
    await this.db.transaction(async (tx) => {
      await fence.check(tx);
      const [agent] = await tx
        .select({ characterId: agents.characterId })
        .from(agents)
        .where(eq(agents.id, id));
      // The agent's row goes with its character (on delete cascade), as do its skills and items.
      if (agent) await tx.delete(characters).where(eq(characters.id, agent.characterId));
    });
  }
}
