// The server's agents: each has an account of its own (`agent:<id>`) and a character it plays as an
// ordinary client of the world room. They are stored, so they come back with the server.
import { randomUUID } from "node:crypto";
import { issueAgentToken } from "../auth/tokens.js";
import type { AgentLimits, AgentRow } from "../db/agents.js";
import { NameTakenError } from "../db/characters.js";
import type { WriteFence } from "../db/world-lease.js";
import { newCharacter } from "../game/character.js";
import type { CharacterState } from "../game/character-state.js";
import { WorldMap } from "../game/map.js";
import type { GameData } from "../game/types.js";
import type { Logger } from "../telemetry/logger.js";
import { Agent, type AgentRecord, type StoredGoal } from "./agent.js";
import { AGENTS_WORLD } from "./agent-connection.js";
import { OwnAgentPass } from "./own-server.js";
import type { ModelPlannerFactory } from "./planners/index.js";

/** An agent decides every other tick. */
const THINK_EVERY_TICKS = 2;

/**
 * Where the agents' rows live: the server's database (AgentRepository), or the agent process's own file
 * (src/server/agents-process.ts). Every write is fenced by the lease of the agent's world.
 */
export interface AgentStore {
  /** The agents of one world, or (no world) of every world, in the order they were made. */
  all(world?: number): Promise<AgentRow[]>;
  /**
   * Stores a new agent and makes its character; the id of the character it plays. NameTakenError if the
   * name is in use, AgentLimitError if an owned agent would pass `limits`, counted over every world.
   */
  create(
    row: Omit<AgentRow, "characterId" | "name">,
    character: CharacterState,
    fence: WriteFence,
    limits: AgentLimits,
  ): Promise<string>;
  saveControl(row: Pick<AgentRow, "id" | "goal" | "goalsPaused">, fence: WriteFence): Promise<void>;
  delete(id: string, fence: WriteFence): Promise<void>;
  /** The agents whose owner is an anonymous account not seen for `seconds`. */
  ofAbsentAnonymousOwners(seconds: number): Promise<string[]>;
}

export interface AgentManagerOptions extends AgentLimits {
  agents: AgentStore;
  gameData: GameData;
  jwtSecret: Uint8Array;
  logger: Logger;
  tickMs: number;
  /** An anonymous owner unseen for this long loses its agents (see Sightings). */
  ownerAbsenceSeconds: number;
  /** How often the agents of absent owners are looked for. */
  sweepMs: number;
  /** Names of the agents to run from the start, owned by nobody, in AGENTS_WORLD. */
  configured: readonly string[];
  /** How many numbered worlds run (WORLDS): an agent stored in a world beyond them stays out. */
  worlds: number;
  /** Makes each agent's language-model planner, when a model is configured. */
  model?: ModelPlannerFactory;
  /**
   * The agents play from outside the game servers (the agent process): each joins its world at the
   * address matchmaking names for it, so that several game server processes each hold their own.
   */
  outsideTheServer?: boolean;
}

/** A world whose agents this process runs: the lease they write under, and their loading. */
interface HostedWorld {
  readonly fence: WriteFence;
  loading: Promise<void>;
}

/**
 * The agents this process runs: those of each world it holds, none of the others. Scaled out, each world's
 * agents run beside it; the agent endpoints reach them there.
 */
export class AgentManager {
  private readonly running = new Map<string, Agent>();
  private readonly map: WorldMap;
  /** Shown by the agents' matchmaking requests, which the REST limit lets through. */
  readonly pass = new OwnAgentPass();
  private baseUrl: string | undefined;
  /**
   * The worlds held here, with the loading of their stored agents (and, in AGENTS_WORLD, of the
   * configured ones); a world leaves once it closes here.
   */
  private readonly hosted = new Map<number, HostedWorld>();
  /** The server is shutting down: no agent is loaded here again. */
  private closed = false;
  /** Looks for the agents of absent anonymous owners while agents are hosted here. */
  private sweepTimer: NodeJS.Timeout | undefined;
  /** A sweep is running: the next one is skipped rather than remove the same agents twice. */
  private sweeping = false;

  constructor(private readonly options: AgentManagerOptions) {
    this.map = new WorldMap(options.gameData.areas, options.gameData);
  }

  /** Once the server listens at `baseUrl`: the agents join through it (as clients of this very server). */
  async listening(baseUrl: string): Promise<void> {
    this.baseUrl = baseUrl;
    await Promise.all([...this.hosted.values()].map(({ loading }) => loading));
    await this.joinAll();
  }

  /**
   * World `world` opened in this process: its stored agents (in AGENTS_WORLD, the configured ones not
   * stored yet too) run here, and write under that world's lease (`fence`). Resolves once they are
   * loaded; they join the world meanwhile (once the server listens).
   */
  host(world: number, fence: WriteFence): Promise<void> {
    if (this.closed) return Promise.resolve();
    const hosted = this.hosted.get(world);
    if (hosted) return hosted.loading;
    this.sweepTimer ??= setInterval(() => void this.removeAbandoned(), this.options.sweepMs).unref();
    const hosting: HostedWorld = { fence, loading: Promise.resolve() };
    this.hosted.set(world, hosting);
    hosting.loading = this.load(world, fence);
    hosting.loading.then(
      () => this.joinAll(world),
      () => {
        // Loading again is left to the next call (the next agent request reaching this world).
        if (this.hosted.get(world) === hosting) this.hosted.delete(world);
      },
    );
    return hosting.loading;
  }

  private async load(world: number, fence: WriteFence): Promise<void> {
    const stored = await this.options.agents.all(world);
    for (const row of stored) {
      const agent = this.agentFor({ ...row, goal: (row.goal as StoredGoal | null) ?? null }, fence);
      this.running.set(row.id, agent);
    }
    if (world !== AGENTS_WORLD) return;
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
  private async joinAll(world?: number): Promise<void> {
    for (const agent of this.list(world)) await this.join(agent);
  }

  /** The agents running here: of one world, or of every world held here. */
  list(world?: number): Agent[] {
    const agents = [...this.running.values()];
    return world === undefined ? agents : agents.filter((agent) => agent.record.world === world);
  }

  /** The worlds the stored agents play in, whichever process runs them, of those that run (WORLDS). */
  async storedWorlds(): Promise<number[]> {
    const worlds = new Set((await this.options.agents.all()).map((row) => row.world));
    return [...worlds].filter((world) => world <= this.options.worlds).sort((a, b) => a - b);
  }

  /** The agent, if it runs here (in `world`, when one is named). */
  get(id: string, world?: number): Agent | undefined {
    const agent = this.running.get(id);
    return world === undefined || agent?.record.world === world ? agent : undefined;
  }

  /**
   * A new agent with a new character of that name, playing in `world` (held here), for an account asking
   * from `ownerAddress` (a client's rate-limit key); NameTakenError or AgentLimitError when it cannot be.
   */
  async create(
    ownerAccountId: string | null,
    name: string,
    {
      join = true,
      ownerAddress = null,
      world = AGENTS_WORLD,
    }: { join?: boolean; ownerAddress?: string | null; world?: number } = {},
  ): Promise<Agent> {
    const { agents, gameData } = this.options;
    const hosting = this.hosted.get(world);
    if (!hosting) throw new Error(`world ${world} is not held in this process: its agents run elsewhere`);
    const character = newCharacter(randomUUID(), name, gameData);
    const record: AgentRecord = {
      id: randomUUID(),
      characterId: character.id,
      name,
      ownerAccountId,
      ownerAddress,
      goal: null,
      goalsPaused: false,
      world,
    };
    // Fenced: a world replaced meanwhile stores no agent that the world replacing it did not load.
    record.characterId = await agents.create(record, character, hosting.fence, this.options);
    const agent = this.agentFor(record, hosting.fence);
    // Its world left while it was stored (it closed, or the server is stopping): run here, it would never
    // be stopped. Stored, it runs where its world opens next.
    if (this.hosted.get(world) !== hosting) return agent;
    this.running.set(agent.record.id, agent);
    if (join) await this.join(agent);
    return agent;
  }

  /**
   * Removes the agents of anonymous owners not seen for ownerAbsenceSeconds, which frees their slots:
   * throwaway accounts cannot hold them for good. Each process removes those it runs. A failure is
   * logged; the next sweep tries again.
   */
  async removeAbandoned(): Promise<void> {
    const { agents, ownerAbsenceSeconds, logger } = this.options;
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const ids = await agents.ofAbsentAnonymousOwners(ownerAbsenceSeconds);
      for (const id of ids) {
        const agent = this.running.get(id);
        if (!agent) continue;
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
   * Deletes the agent and its character, then stops it. The rows go first: should that fail, the agent
   * runs on and can be removed again, rather than be gone here until a restart brings it back.
   */
  async remove(agent: Agent): Promise<void> {
    const hosting = this.hosted.get(agent.record.world);
    // A running agent is one its world, held here, loaded (stopWorld lets go of the others).
    if (!hosting) throw new Error(`world ${agent.record.world} is not held in this process`);
    await this.options.agents.delete(agent.record.id, hosting.fence);
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

  /** Every agent here leaves its world (the server shuts down first, so none tries to come back). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.hosted.keys()].map((world) => this.stopWorld(world)));
  }

  /** World `world` closed here: its agents leave it (they run where it opens next). */
  async stopWorld(world: number): Promise<void> {
    const hosting = this.hosted.get(world);
    if (!hosting) return;
    await hosting.loading.catch(() => {});
    if (this.hosted.get(world) === hosting) this.hosted.delete(world);
    if (this.hosted.size === 0) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
    }
    const leaving = this.list(world);
    for (const agent of leaving) this.running.delete(agent.record.id);
    await Promise.all(leaving.map((agent) => agent.stop()));
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
      followsPublicAddress: this.options.outsideTheServer ?? false,
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
