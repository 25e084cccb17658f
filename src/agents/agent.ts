// One autonomous agent: an ordinary Colyseus client of the world room that plays its own character,
// deciding every other tick with the rules of src/agents/brain.ts (see RulesTurn) or its language
// model (see ModelTurns). It reads its surroundings from world:update messages (see Senses; the join
// option `updates: "messages"`): agents run in the server's process, where decoding a state patch for
// each of them would take from the tick's core. Its seat in the world is an AgentConnection.
// Its owner's messages and quick actions go through OwnerCommands.
import type { Room } from "@colyseus/sdk";
import type { PlayerSync } from "../game/world-types.js";
import type { Logger } from "../telemetry/logger.js";
import { countAgentDecision } from "../telemetry/metrics.js";
import { runAction } from "./actions/index.js";
import type { CurrentAction } from "./actions/step-names.js";
import type { ActionName, ActionResult, ActionRuntime } from "./actions/types.js";
import { agentChatLine } from "./agent-chat.js";
import { AgentConnection } from "./agent-connection.js";
import { type AgentRecord, goalProgress, newGoal, RecordWrites } from "./agent-goal.js";
import {
  type AgentView,
  type Errand,
  errandStep,
  type Goal,
  type GoalType,
  goalXp,
  type Step,
  type WorldKnowledge,
} from "./brain.js";
import { DecisionClock } from "./decision-clock.js";
import type { AgentContext, AgentKnowledge } from "./knowledge.js";
import { ModelTurns } from "./model-turns.js";
import { OwnerCommands } from "./owner-commands.js";
import { survivalStep } from "./planners/fighter.js";
import type { ModelPlanner } from "./planners/model-planner.js";
import { RulesTurn } from "./rules-turn.js";
import { type AgentTally, Senses } from "./senses.js";
import { UnderWay } from "./under-way.js";

export type { AgentRecord, StoredGoal } from "./agent-goal.js";
export { isQuickAction, type QuickActionId } from "./quick-actions.js";
export type { AgentTally } from "./senses.js";

export interface AgentDeps {
  world: WorldKnowledge;
  /** The agent decides every this many world ticks (see DecisionClock). */
  thinkEveryTicks: number;
  /** The world's tick length, for the clock's quiet fallback. */
  tickMs: number;
  token(): Promise<string>;
  /** Headers of its matchmaking requests (see OwnAgentPass). */
  headers: Record<string, string>;
  /** See ConnectionDeps.followsPublicAddress. */
  followsPublicAddress: boolean;
  /** Stores the agent's goal and pause state after a change. */
  save(record: AgentRecord): Promise<void>;
  logger: Logger;
  /** The language model that decides for it, if one is configured (else its rules do). */
  model?: ModelPlanner;
}

export class Agent {
  private readonly connection: AgentConnection;
  private readonly senses: Senses;
  /** When it decides: the exam holds and paces it by hand (bench/agents-exam.ts, bench/lockstep.ts). */
  readonly clock: DecisionClock;
  /** The language model's part in its decisions, when one is configured. */
  private readonly modelTurns: ModelTurns | undefined;
  /** What it has under way. */
  private readonly work = new UnderWay();
  private errand: Errand | undefined;
  private readonly rules: RulesTurn;
  private readonly writes: RecordWrites;
  /** An action was asked for (not chosen by the goal's rules): it runs until nothing is under way. */
  private directed = false;
  /** What it does with its owner's messages and quick actions. */
  readonly commands: OwnerCommands;

  constructor(
    readonly record: AgentRecord,
    private readonly deps: AgentDeps,
  ) {
    this.writes = new RecordWrites(record, deps.save);
    this.clock = new DecisionClock(deps.thinkEveryTicks, deps.tickMs, () => this.think());
    this.senses = new Senses(deps.world, {
      target: () => this.work.target,
      targetEnded: () => {
        this.work.target = undefined;
      },
      synced: (sync) => {
        // The world took what was asked: an errand's refusals are counted in a row.
        if (this.errand) this.errand.failures = 0;
        this.work.accepted();
        this.measureGoalFrom(sync);
      },
      refused: (event) => this.refused(event),
      updated: (tick) => this.clock.tick(tick),
    });
    this.rules = new RulesTurn({
      name: record.name,
      world: deps.world,
      goalsPaused: () => this.record.goalsPaused,
      target: () => this.work.target,
      send: (step) => this.send(step),
      sent: () => this.tally.sent,
      chose: (type) => {
        this.setGoal(type).catch((error: unknown) => {
          this.deps.logger.warn({ err: error, agentId: record.id }, "an agent could not store its new goal");
        });
      },
      startErrand: (errand) => {
        this.errand = errand;
      },
    });
    this.connection = new AgentConnection({
      agentId: record.id,
      characterId: record.characterId,
      world: record.world,
      token: deps.token,
      headers: deps.headers,
      followsPublicAddress: deps.followsPublicAddress,
      logger: deps.logger,
      joined: (room) => this.senses.listen(room),
      left: () => {
        this.work.target = undefined;
        this.rules.newSession();
      },
    });
    this.modelTurns =
      deps.model &&
      new ModelTurns(deps.model, {
        agentId: record.id,
        logger: deps.logger,
        context: () => this.context(),
        goalsPaused: () => this.record.goalsPaused,
        currentAction: () => this.currentAction(),
        act: (name, params) => this.act(name, params),
        say: (text) => this.say(text),
        rulesDecide: () => {
          const view = this.view();
          if (view) this.rules.decide(view, this.goal());
        },
      });
    const { modelTurns } = this;
    this.commands = new OwnerCommands({
      world: deps.world,
      goalsPaused: () => this.record.goalsPaused,
      view: () => this.view(),
      halt: () => this.halt(),
      startErrand: (errand) => {
        this.errand = errand;
      },
      setGoal: (type) => this.setGoal(type),
      pauseGoals: () => this.pauseGoals(),
      instruct: modelTurns && ((text) => modelTurns.instruct(text)),
      send: (step) => this.send(step),
    });
  }

  /** What happened to it since it started (see AgentTally). */
  get tally(): AgentTally {
    return this.senses.tally;
  }

  private get room(): Room | undefined {
    return this.connection.room;
  }

  private get sync(): PlayerSync | undefined {
    return this.senses.sync;
  }

  /**
   * Calls `done` once it has read everything the world sent it so far: the answer to a ping follows it
   * on the connection (at once when it is not in the world).
   */
  whenCaughtUp(done: () => void): void {
    if (this.room?.connection.isOpen) this.room.ping(() => done());
    else done();
  }

  /** Its session in the world, while it is in it. */
  get sessionId(): string | undefined {
    return this.room?.sessionId;
  }

  /**
   * In the world: its connection is open (the SDK keeps the room of a dropped one while it tries to
   * bring it back) and the world has told it who it is.
   */
  get online(): boolean {
    return this.room?.connection.isOpen === true && this.sync !== undefined;
  }

  private get world(): WorldKnowledge {
    return this.deps.world;
  }

  /**
   * Joins the world as its character and starts deciding. Out of the world (it could not join, or it
   * left without being stopped: a lost connection the world gave up on, a kick), it joins again.
   * Starting an agent that is started or stopped does nothing.
   */
  async start(baseUrl: string): Promise<void> {
    if (!this.connection.startable) return;
    this.clock.start();
    this.deps.logger.info(
      { agentId: this.record.id, name: this.record.name, planner: this.planner() },
      `agent ${this.record.name} started`,
    );
    await this.connection.start(baseUrl);
  }

  async stop(): Promise<void> {
    if (this.connection.running)
      this.deps.logger.info(
        { agentId: this.record.id, name: this.record.name },
        `agent ${this.record.name} stopped`,
      );
    this.clock.stop();
    this.modelTurns?.cancel();
    await this.connection.stop();
  }

  /**
   * What it last started was refused, or the action under way ended in a failure (an error that answers
   * no message): the next think starts afresh rather than wait on it. A refused bite or bank move leaves
   * the action under way alone: the fight it is in is the one it flees from.
   */
  private refused(event: string | undefined): void {
    if (event === undefined || event === "player:action" || event === "player:move")
      this.work.target = undefined;
    if (this.errand) this.errand.failures++;
    this.work.refused(event);
    this.rules.refused();
  }

  /** The goal with its progress, or null. */
  goal(): Goal | null {
    return goalProgress(this.record.goal, this.sync);
  }

  async setGoal(type: GoalType, target?: number): Promise<Goal> {
    this.record.goal = newGoal(type, target, this.sync);
    // A decision asked for the goal before is not this one's.
    this.modelTurns?.cancel();
    this.work.target = undefined;
    this.errand = undefined;
    await this.store();
    return this.goal()!;
  }

  /** Stores the goal and pause state (see RecordWrites). */
  private store(): Promise<void> {
    return this.writes.write();
  }

  /** A goal set before the agent knew its XP is measured from its first player:sync. */
  private measureGoalFrom(sync: PlayerSync): void {
    const goal = this.record.goal;
    if (!goal || goal.baseXp !== null) return;
    goal.baseXp = goalXp(goal.type, sync.skills);
    this.store().catch((error: unknown) => {
      this.deps.logger.warn({ err: error, agentId: this.record.id }, "an agent could not store its goal");
    });
  }

  /** Pauses goals: the current path and action stop, the agent stands idle and sets no goal itself. */
  async pauseGoals(): Promise<void> {
    this.record.goal = null;
    this.record.goalsPaused = true;
    this.halt();
    await this.store();
  }

  async resumeGoals(): Promise<void> {
    this.record.goalsPaused = false;
    await this.store();
  }

  private think(): void {
    const view = this.view();
    if (!view) return;
    // Low in a fight, it eats or flees first, whoever decides its moves and however long its model takes.
    const survival = survivalStep(view, this.deps.world, this.work.target);
    if (survival) {
      this.send(survival);
      return;
    }
    if (this.modelTurns?.takeInstructions(this.goal())) return;
    // An action its owner (or its model) asked for runs on before the goal's rules decide again.
    if (this.directed) {
      if (this.currentAction() !== null) {
        if (this.work.task) this.runTask();
        return;
      }
      this.directed = false;
    }
    if (this.work.task) {
      this.runTask();
      return;
    }
    if (this.errand) {
      const step = errandStep(this.errand, view, this.world, this.work.target);
      if (step === undefined) this.errand = undefined;
      else if (step !== "wait") this.send(step);
      return;
    }
    const goal = this.goal();
    if (this.modelTurns?.take(goal)) return;
    this.rules.decide(view, goal);
  }

  /** Says a model's reply in chat, held to the chat rule. */
  private say(text: string): void {
    const said = agentChatLine(text);
    if (typeof said === "string") this.send({ event: "player:chat", data: { message: said } });
  }

  /** Stops the current action and path, and gives up the model's decision under way. */
  private halt(): void {
    this.modelTurns?.cancel();
    this.work.target = undefined;
    this.errand = undefined;
    this.work.task = undefined;
    this.send({ event: "player:action", data: { action: "stop" } });
  }

  /** Sends a message as the agent's client; `action` names what it is part of (else read from it). */
  private send(step: Step, action?: CurrentAction): void {
    // Not kept for a connection coming back: by then the world has moved on from what it answered.
    if (!this.room || !this.online) return;
    this.room.send(step.event, step.data);
    this.tally.sent++;
    countAgentDecision(this.planner());
    this.work.sent(step, action);
  }

  /** Who makes its decisions (the protocol's `planner`): "rules", or the language model's "<provider>:<model>". */
  planner(): string {
    return this.modelTurns?.planner ?? "rules";
  }

  /** Why the rules decide for an agent with a language model, while they do (null otherwise). */
  plannerReason(): string | null {
    return this.modelTurns?.plannerReason ?? null;
  }

  /** What the agent knows now (see AgentKnowledge): the one source of its providers and actions. */
  knowledge(): AgentKnowledge {
    return this.senses.knowledge(this.record, this.online, this.currentAction());
  }

  context(): AgentContext {
    return { know: this.knowledge(), world: this.world };
  }

  /** The action under way (its interface name), or null. */
  currentAction(): CurrentAction | null {
    if (!this.online) return null;
    return this.work.action(this.senses.seen, this.sync?.id);
  }

  /** Runs one of the interface's actions with validated parameters (see src/agents/actions). */
  async act(name: ActionName, params: unknown): Promise<ActionResult> {
    const result = await runAction(this.runtime(name), name, params);
    if (result.ok) this.directed = true;
    return result;
  }

  private runTask(): void {
    const task = this.work.task!;
    const step = task.step(this.context());
    if (step === "done") this.work.task = undefined;
    else if (step !== "wait") this.send(step, task.action);
  }

  /** What the action `name` may do to the agent; its messages are counted as that action. */
  private runtime(name: ActionName): ActionRuntime {
    return {
      ...this.context(),
      send: (step) => this.send(step, name),
      begin: (task) => {
        this.errand = undefined;
        this.work.begin(task);
        // Its first message goes now, not at the next decision.
        this.runTask();
      },
      halt: () => this.halt(),
      setGoal: async (type, target) => {
        await this.setGoal(type, target);
      },
    };
  }

  /** What the agent knows now, while in the world (see Senses.view). */
  private view(): AgentView | undefined {
    return this.online ? this.senses.view() : undefined;
  }
}
