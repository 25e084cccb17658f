// The server's agents: each has an account of its own (`agent:<id>`) and a character it plays as an
// ordinary client of the world room. They are stored, so they come back with the server.
import { randomUUID } from "node:crypto";
import { issueAgentToken } from "../auth/tokens.js";
import type { AgentRow } from "../db/agents.js";
import { NameTakenError } from "../db/characters.js";
import type { WriteFence } from "../db/world-lease.js";
import { newCharacter } from "../game/character.js";
import { WorldMap } from "../game/map.js";
import type { CharacterState, GameData } from "../game/types.js";
import type { Logger } from "../telemetry/logger.js";
import { Agent, type AgentRecord, type StoredGoal } from "./agent.js";
import { OwnAgentPass } from "./own-server.js";
import type { ModelPlannerFactory } from "./planners/index.js";

/** An agent decides every other tick. */
const THINK_EVERY_TICKS = 2;

export class AgentLimitError extends Error {
  override name = "AgentLimitError";
}

/**
 * Where the agents' rows live: the server's database (AgentRepository), or the agent process's own file
 * (src/server/agents-process.ts). Every write is fenced by the lease of the world the agents run beside.
 */
export interface AgentStore {
  all(): Promise<AgentRow[]>;
  /** Stores a new agent and makes its character; the id of the character it plays. NameTakenError if the name is in use. */
  create(
    row: Omit<AgentRow, "characterId" | "name">,
    character: CharacterState,
    fence: WriteFence,
  ): Promise<string>;
  saveControl(row: Pick<AgentRow, "id" | "goal" | "goalsPaused">, fence: WriteFence): Promise<void>;
  delete(id: string, fence: WriteFence): Promise<void>;
  /** The agents whose owner is an anonymous account not seen for `seconds`. */
  ofAbsentAnonymousOwners(seconds: number): Promise<string[]>;
}

export interface AgentManagerOptions {
  agents: AgentStore;
  gameData: GameData;
  jwtSecret: Uint8Array;
  logger: Logger;
  tickMs: number;
  perAccount: number;
  /** How many agents may be started from one client address, whichever accounts asked. */
  perAddress: number;
  /** How many agents accounts may run in all (the configured ones aside). */
  maxOwned: number;
  /** An anonymous owner unseen for this long loses its agents (see Sightings). */
  ownerAbsenceSeconds: number;
  /** How often the agents of absent owners are looked for. */
  sweepMs: number;
  /** Names of the agents to run from the start, owned by nobody. */
  configured: readonly string[];
  /** Makes each agent's language-model planner, when a model is configured. */
  model?: ModelPlannerFactory;
}

/**
 * The agents this process runs: all of them while it holds the world, none otherwise. Scaled out, the
 * agents are one set, beside the world; the agent endpoints reach them there.
 */
export class AgentManager {
  private readonly running = new Map<string, Agent>();
  private readonly map: WorldMap;
  /** Shown by the agents' matchmaking requests, which the REST limit lets through. */
  readonly pass = new OwnAgentPass();
  private baseUrl: string | undefined;
  /** Set while this process holds the world: the loading of the stored and configured agents. */
  private hosting: Promise<void> | undefined;
  /**
   * The lease of the world the agents run beside (their stored rows are written under it); unset once
   * they have left it.
   */
  private fence: WriteFence | undefined;
  /** The server is shutting down: no agent is loaded here again. */
  private closed = false;
  /**
   * Creations under way, by owner: they count against the maximums from the start, so that requests
   * arriving together cannot all pass the check before any of their agents runs.
   */
  private readonly creating = new Map<string, number>();
  /** The same, by the client address that asked. */
  private readonly creatingFrom = new Map<string, number>();
  /** Looks for the agents of absent anonymous owners while the agents are hosted here. */
  private sweepTimer: NodeJS.Timeout | undefined;
  /** A sweep is running: the next one is skipped rather than remove the same agents twice. */
  private sweeping = false;

  constructor(private readonly options: AgentManagerOptions) {
    this.map = new WorldMap(options.gameData.areas, options.gameData);
  }

  /** Once the server listens at `baseUrl`: the agents join through it (as clients of this very server). */
  async listening(baseUrl: string): Promise<void> {
    this.baseUrl = baseUrl;
    await this.hosting;
    await this.joinAll();
  }

  /**
   * The world opened in this process: the stored agents, and the configured ones not stored yet, run
   * here, and write under that world's lease (`fence`). Resolves once they are loaded; they join the
   * world meanwhile (once the server listens).
   */
  host(fence: WriteFence): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!this.hosting) {
      this.fence = fence;
      this.sweepTimer ??= setInterval(() => void this.removeAbandoned(), this.options.sweepMs).unref();
      const loading = this.load(fence);
      this.hosting = loading;
      loading.then(
        () => this.joinAll(),
        () => {
          // Loading again is left to the next call (the next agent request reaching this world).
          if (this.hosting === loading) this.hosting = undefined;
        },
      );
    }
    return this.hosting;
  }

  private async load(fence: WriteFence): Promise<void> {
    const stored = await this.options.agents.all();
    for (const row of stored) {
      const agent = this.agentFor({ ...row, goal: (row.goal as StoredGoal | null) ?? null }, fence);
      this.running.set(row.id, agent);
    }
    const names = new Set(stored.map((row) => row.name.toLowerCase()));
    for (const name of this.options.configured) {
      if (names.has(name.toLowerCase())) continue;
      try {
        await this.create(null, name, { join: false });
      } catch (error) {
        if (!(error instanceof NameTakenError)) throw error;
        this.options.logger.error(
          `AGENTS names ${name}, but a player's character has that name: rename the agent`,
        );
      }
    }
  }

  /**
   * One after another, in the order they were made: the world serves its players in the order they
   * entered it, so a world started the same way runs the same way (see the agents' exam).
   */
  private async joinAll(): Promise<void> {
    for (const agent of this.running.values()) await this.join(agent);
  }

  list(): Agent[] {
    return [...this.running.values()];
  }

  get(id: string): Agent | undefined {
    return this.running.get(id);
  }

  /**
   * A new agent with a new character of that name, for an account asking from `ownerAddress` (a client's
   * rate-limit key); NameTakenError or AgentLimitError when it cannot be.
   */
  async create(
    ownerAccountId: string | null,
    name: string,
    { join = true, ownerAddress = null }: { join?: boolean; ownerAddress?: string | null } = {},
  ): Promise<Agent> {
    const { agents, gameData, perAccount, perAddress, maxOwned } = this.options;
    const fence = this.fence;
    if (!fence) throw new Error("no world hosts the agents in this process");
    if (ownerAccountId !== null) {
      const owned = this.list().filter((agent) => agent.record.ownerAccountId !== null);
      const running = owned.filter((agent) => agent.record.ownerAccountId === ownerAccountId).length;
      if (running + (this.creating.get(ownerAccountId) ?? 0) >= perAccount)
        throw new AgentLimitError(`an account may run ${perAccount} agents at most`);
      if (ownerAddress !== null) {
        const fromAddress = owned.filter((agent) => agent.record.ownerAddress === ownerAddress).length;
        if (fromAddress + (this.creatingFrom.get(ownerAddress) ?? 0) >= perAddress)
          throw new AgentLimitError(`one client address may start ${perAddress} agents at most`);
      }
      const creatingInAll = [...this.creating.values()].reduce((sum, count) => sum + count, 0);
      if (owned.length + creatingInAll >= maxOwned)
        throw new AgentLimitError(`this server runs ${maxOwned} agents of accounts at most`);
      // Counted as the owner's from here until it runs (or could not be made).
      countIn(this.creating, ownerAccountId, +1);
      if (ownerAddress !== null) countIn(this.creatingFrom, ownerAddress, +1);
    }
    let agent: Agent;
    try {
      const character = newCharacter(randomUUID(), name, gameData);
      const record: AgentRecord = {
        id: randomUUID(),
        characterId: character.id,
        name,
        ownerAccountId,
        ownerAddress,
        goal: null,
        goalsPaused: false,
      };
      // Fenced: a world replaced meanwhile stores no agent that the world replacing it did not load.
      record.characterId = await agents.create(record, character, fence);
      agent = this.agentFor(record, fence);
    } finally {
      if (ownerAccountId !== null) countIn(this.creating, ownerAccountId, -1);
      if (ownerAccountId !== null && ownerAddress !== null) countIn(this.creatingFrom, ownerAddress, -1);
    }
    // The agents left while it was stored (their world closed, or the server is stopping): run here, it
    // would never be stopped. Stored, it runs where the world opens next.
    if (this.fence !== fence) return agent;
    this.running.set(agent.record.id, agent);
    if (join) await this.join(agent);
    return agent;
  }

  /**
   * Removes the agents of anonymous owners not seen for ownerAbsenceSeconds, which frees their slots:
   * throwaway accounts cannot hold them for good. A failure is logged; the next sweep tries again.
   */
  async removeAbandoned(): Promise<void> {
    const { agents, ownerAbsenceSeconds, logger } = this.options;
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const ids = await agents.ofAbsentAnonymousOwners(ownerAbsenceSeconds);
      for (const id of ids) {
        const agent = this.running.get(id);
        if (!agent || !this.fence) continue;
        await this.remove(agent);
        logger.info(
          { agentId: id, name: agent.record.name },
          `an agent was removed: its anonymous owner was not seen for ${ownerAbsenceSeconds} s`,
        );
      }
    } catch (error) {
      logger.warn({ err: error }, "removing the agents of absent owners failed");
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Forgets the agent and stops it; its character stays. Its row goes first: should that fail, the
   * agent runs on and can be removed again, rather than be gone here until a restart brings it back.
   */
  async remove(agent: Agent): Promise<void> {
    // A running agent is one the current world loaded (stopAll lets go of the others).
    await this.options.agents.delete(agent.record.id, this.fence!);
    this.running.delete(agent.record.id);
    await agent.stop();
  }

  /** The server shuts down: every agent leaves, and none is loaded here again (see `isClosed`). */
  async close(): Promise<void> {
    this.closed = true;
    await this.stopAll();
  }

  /** Agent requests that still reach this process are refused: the world reopens elsewhere. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Every agent leaves the world (it closes, or the server shuts down first, so none tries to come back). */
  async stopAll(): Promise<void> {
    await this.hosting?.catch(() => {});
    this.hosting = undefined;
    this.fence = undefined;
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    const agents = this.list();
    this.running.clear();
    await Promise.all(agents.map((agent) => agent.stop()));
  }

  /** An agent writes under the lease of the world that loaded it, whichever world runs later. */
  private agentFor(record: AgentRecord, fence: WriteFence): Agent {
    const { agents, gameData, jwtSecret, logger, tickMs } = this.options;
    return new Agent(record, {
      world: { data: gameData, map: this.map },
      thinkEveryTicks: THINK_EVERY_TICKS,
      tickMs,
      token: () => issueAgentToken(jwtSecret, record.id),
      headers: this.pass.headers,
      save: (changed) => agents.saveControl(changed, fence),
      logger,
      model: this.options.model?.(),
    });
  }

  private async join(agent: Agent): Promise<void> {
    if (!this.baseUrl) return;
    try {
      await agent.start(this.baseUrl);
    } catch (error) {
      this.options.logger.error(
        { err: error, agentId: agent.record.id },
        "an agent could not join the world",
      );
    }
  }
}

function countIn(counts: Map<string, number>, key: string, change: number): void {
  const count = (counts.get(key) ?? 0) + change;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
