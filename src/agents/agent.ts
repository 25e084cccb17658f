// One autonomous agent: an ordinary Colyseus client of the world room that plays its own character,
// deciding every other tick with the rules of src/agents/brain.ts. It reads its surroundings from
// world:update messages (the join option `updates: "messages"`): agents run in the server's process,
// where decoding a state patch for each of them would take from the tick's core.
import { randomUUID } from "node:crypto";
import { Client, type Room } from "@colyseus/sdk";
import type { AgentRow } from "../db/agents.js";
import { chatText } from "../game/chat.js";
import { INVENTORY_SLOTS, type SkillName } from "../game/types.js";
import type { CombatHit, PlayerSync, WorldEntity, WorldUpdate } from "../game/world-types.js";
import { CLOSE_REPLACED } from "../protocol/close-codes.js";
import type { WorldJoinOptions } from "../protocol/messages.js";
import type { Logger } from "../telemetry/logger.js";
import { countAgentDecision } from "../telemetry/metrics.js";
import { runAction } from "./actions/index.js";
import { actionOfStep, type CurrentAction } from "./actions/step-names.js";
import type { ActionName, ActionResult, ActionRuntime, Task } from "./actions/types.js";
import {
  type AgentView,
  bankStep,
  banksWhenFull,
  DEFAULT_GOAL_XP,
  describeGoal,
  type Errand,
  errandStep,
  GATHERING_GOALS,
  type Goal,
  type GoalType,
  goalXp,
  newErrand,
  nextStep,
  parseDropCommand,
  pickupStep,
  type Step,
  type WorldKnowledge,
} from "./brain.js";
import { DecisionClock } from "./decision-clock.js";
import type { AgentContext, AgentKnowledge } from "./knowledge.js";
import { throughOwnServer } from "./own-server.js";
import { fightingStyle } from "./planners/fighter.js";
import { isQuickAction, QUICK_ACTION_LABELS, QUICK_ACTIONS, type QuickActionId } from "./quick-actions.js";

export { isQuickAction, type QuickActionId } from "./quick-actions.js";

import type { ModelDecision, ModelPlanner } from "./planners/model-planner.js";

/** How many of the model's last actions (with their answers) it is reminded of. */
const RECENT_RESULTS = 5;

/** A task gives up after this many refusals in a row (the world is not what the agent thought). */
const MAX_TASK_FAILURES = 3;

/**
 * A goal as stored: the XP its skills had when it began, to measure its progress from (null until the
 * agent's first player:sync tells it, for a goal set before).
 */
export type StoredGoal = Omit<Goal, "progress"> & { baseXp: number | null };

/** An agent as stored, its goal read back. */
export interface AgentRecord extends AgentRow {
  goal: StoredGoal | null;
}

export interface AgentDeps {
  world: WorldKnowledge;
  /** The agent decides every this many world ticks (see DecisionClock). */
  thinkEveryTicks: number;
  /** The world's tick length, for the clock's quiet fallback. */
  tickMs: number;
  token(): Promise<string>;
  /** Headers of its matchmaking requests (see OwnAgentPass). */
  headers: Record<string, string>;
  /** Stores the agent's goal and pause state after a change. */
  save(record: AgentRecord): Promise<void>;
  logger: Logger;
  /** The language model that decides for it, if one is configured (else its rules do). */
  model?: ModelPlanner;
}

/** The agents' one planner so far: the rules of brain.ts. */
const PLANNER = "rules";

/** An agent out of the world tries to join again after this long, twice as long after each failure. */
const REJOIN_FIRST_DELAY_MS = 1000;
const REJOIN_MAX_DELAY_MS = 60_000;

/** What happened to an agent since it started, for measuring how well it plays (`npm run agents:exam`). */
export interface AgentTally {
  /** The world's tick of its latest world:update. */
  tick: number | undefined;
  deaths: number;
  /** Its messages the world refused (each error it was sent). */
  refused: number;
}

export class Agent {
  readonly tally: AgentTally = { tick: undefined, deaths: 0, refused: 0 };
  private room: Room | undefined;
  /** Its latest player:sync; kept while it is out of the world, so that its goal's progress still reads. */
  private sync: PlayerSync | undefined;
  /** The entities in view, its own player included, as its world:updates listed them. */
  private readonly seen = new Map<string, WorldEntity>();
  private readonly clock: DecisionClock;
  /** The target of the action last started, kept at while it is still there. */
  private current: string | undefined;
  private errand: Errand | undefined;
  /** It went to bank a full inventory: while that inventory stays full (the bank refused), it drops instead. */
  private bankedWhenFull = false;
  /** The combat style chosen in this session (the world starts every session at accurate). */
  private style: string | undefined;
  private baseUrl: string | undefined;
  private stopped = false;
  private rejoinTimer: NodeJS.Timeout | undefined;
  private rejoinDelayMs = REJOIN_FIRST_DELAY_MS;
  /** The last write of the goal and pause state (see store). */
  private storing: Promise<void> = Promise.resolve();
  /** An action's work that takes several messages (see Task), and its refusals in a row. */
  private task: Task | undefined;
  private taskFailures = 0;
  /** The action (SPEC's name) of the message that started what is under way. */
  private currentName: CurrentAction | undefined;
  private runEnergy: number | undefined;
  private lastCombatAt: number | undefined;
  /** Who made the last decision: the model's label, or "rules" (none configured, or it fell back). */
  private plannerUsed: string;
  /** The owner's messages waiting for the model, and the model's last actions with their answers. */
  private readonly instructions: string[] = [];
  private readonly recent: { action: string; result: string }[] = [];
  /** A model call is under way. */
  private deciding = false;
  /** An action was asked for (not chosen by the goal's rules): it runs until nothing is under way. */
  private directed = false;
  /** Where its last move sent it. */
  private walkingTo: { x: number; z: number } | undefined;

  constructor(
    readonly record: AgentRecord,
    private readonly deps: AgentDeps,
  ) {
    this.plannerUsed = deps.model?.label ?? "rules";
    this.clock = new DecisionClock(deps.thinkEveryTicks, deps.tickMs, () => this.think());
  }

  /** Makes no decision before world tick `tick` (see DecisionClock.holdUntil). */
  holdUntil(tick: number): void {
    this.clock.holdUntil(tick);
  }

  get online(): boolean {
    return this.room !== undefined && this.sync !== undefined;
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
    if (this.baseUrl || this.stopped) return;
    this.baseUrl = baseUrl;
    this.clock.start();
    this.deps.logger.info(
      { agentId: this.record.id, name: this.record.name, planner: PLANNER },
      `agent ${this.record.name} started`,
    );
    await this.join();
  }

  async stop(): Promise<void> {
    if (this.baseUrl && !this.stopped)
      this.deps.logger.info(
        { agentId: this.record.id, name: this.record.name },
        `agent ${this.record.name} stopped`,
      );
    this.stopped = true;
    this.clock.stop();
    clearTimeout(this.rejoinTimer);
    const room = this.room;
    this.room = undefined;
    if (room) await leaveForGood(room);
  }

  private async join(): Promise<void> {
    try {
      await this.connect(this.baseUrl!);
      this.rejoinDelayMs = REJOIN_FIRST_DELAY_MS;
    } catch (error) {
      this.rejoinLater();
      throw error;
    }
  }

  private rejoinLater(): void {
    if (this.stopped) return;
    const delay = this.rejoinDelayMs;
    this.rejoinDelayMs = Math.min(delay * 2, REJOIN_MAX_DELAY_MS);
    this.rejoinTimer = setTimeout(() => {
      this.join().catch((error: unknown) => {
        this.deps.logger.warn(
          { err: error, agentId: this.record.id, retryInMs: this.rejoinDelayMs },
          "an agent could not join the world again",
        );
      });
    }, delay);
  }

  private async connect(baseUrl: string): Promise<void> {
    const internal = new URL(baseUrl);
    const sdk = new Client(baseUrl, {
      headers: this.deps.headers,
      urlBuilder: (url) => throughOwnServer(url, internal),
    });
    sdk.auth.token = await this.deps.token();
    const options: WorldJoinOptions = { characterId: this.record.characterId, updates: "messages" };
    const room = await sdk.joinOrCreate("world", options);
    if (this.stopped) {
      await leaveForGood(room);
      return;
    }
    // A new session's first update lists everything in view.
    this.seen.clear();
    room.onMessage("world:update", (update: WorldUpdate) => this.see(update));
    // Reconnected, it is sent its whole view again: what was sent while the connection failed may be lost.
    room.onReconnect(() => this.seen.clear());
    room.onMessage("player:sync", (sync: PlayerSync) => {
      this.sync = sync;
      // The world took what was asked: an errand's refusals are counted in a row.
      if (this.errand) this.errand.failures = 0;
      this.taskFailures = 0;
      this.runEnergy = sync.runEnergy;
      this.measureGoalFrom(sync);
    });
    room.onMessage("player:energy", ({ runEnergy }: { runEnergy: number }) => {
      this.runEnergy = runEnergy;
    });
    room.onMessage("combat:hit", ({ attackerId, targetId, targetHealth }: CombatHit) => {
      if (attackerId === this.sync?.id || targetId === this.sync?.id) this.lastCombatAt = Date.now();
      // Killed: it comes back at a spawn point with nothing under way, though the world says no more.
      if (targetId === this.sync?.id && targetHealth === 0) {
        this.current = undefined;
        this.tally.deaths++;
      }
    });
    room.onMessage("skill:xp", ({ skill, xp, level }: { skill: SkillName; xp: number; level: number }) => {
      if (this.sync) this.sync.skills[skill] = { xp, level };
    });
    room.onMessage("error", ({ event }: { event?: string }) => {
      this.tally.refused++;
      // What it last started was refused, or the action under way ended in a failure (an error that
      // answers no message): the next think starts afresh rather than wait on it. A refused bite or bank
      // move leaves the action under way alone: the fight it is in is the one it flees from.
      if (event === undefined || event === "player:action" || event === "player:move")
        this.current = undefined;
      if (this.errand) this.errand.failures++;
      if (this.task && ++this.taskFailures >= MAX_TASK_FAILURES) this.task = undefined;
    });
    // Everything else the world says is not needed.
    room.onMessage("*", () => {});
    room.onLeave((code: number) => {
      if (this.room !== room) return;
      this.room = undefined;
      this.current = undefined;
      this.style = undefined;
      // Replaced by another session of its character (a second copy of the agent, as while one world
      // replaces another): joining again would replace that one in turn, back and forth.
      if (code === CLOSE_REPLACED) {
        this.deps.logger.info({ agentId: this.record.id }, "an agent was replaced by another session");
        return;
      }
      this.deps.logger.warn({ agentId: this.record.id, code }, "an agent left the world: it joins again");
      this.rejoinLater();
    });
    this.room = room;
  }

  /** The goal with its progress, or null. */
  goal(): Goal | null {
    const stored = this.record.goal;
    if (!stored) return null;
    const { baseXp, ...goal } = stored;
    const gained = this.sync && baseXp !== null ? goalXp(goal.type, this.sync.skills) - baseXp : 0;
    const progress =
      goal.type === "idle" ? 0 : Math.min(1, Math.max(0, gained / (goal.target ?? DEFAULT_GOAL_XP)));
    return { ...goal, progress };
  }

  async setGoal(type: GoalType, target?: number): Promise<Goal> {
    this.record.goal = {
      id: randomUUID(),
      type,
      description: describeGoal(type),
      ...(type === "idle" ? {} : { target: target ?? DEFAULT_GOAL_XP }),
      startedAt: new Date().toISOString(),
      baseXp: this.sync ? goalXp(type, this.sync.skills) : null,
    };
    this.current = undefined;
    this.errand = undefined;
    await this.store();
    return this.goal()!;
  }

  /**
   * Stores the goal and pause state as they are when the write begins, each write after the one before:
   * writes that overlapped could commit out of order and leave an older state stored, which a restart
   * would bring back.
   */
  private store(): Promise<void> {
    const write = this.storing.then(() => this.deps.save(this.record));
    this.storing = write.catch(() => {});
    return write;
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

  /**
   * A message from the dashboard: a quick action's name runs it, `drop all [item]` drops (see
   * parseDropCommand); any other text is an instruction for its language model, or without one is
   * said in chat.
   */
  async message(text: string): Promise<void> {
    const command = text.trim().toLowerCase();
    const drop = parseDropCommand(text, this.world.data);
    if (isQuickAction(command)) await this.runQuickAction(command);
    else if (drop) {
      this.halt();
      this.errand = newErrand("drop", drop.itemId);
    } else if (this.deps.model) {
      // Instructions for its model; the oldest go when many wait (the model is asked a few times a minute).
      this.instructions.push(text.trim());
      if (this.instructions.length > RECENT_RESULTS) this.instructions.shift();
    } else this.send({ event: "player:chat", data: { message: text } });
  }

  quickActions(): { id: QuickActionId; label: string; available: boolean; reason?: string }[] {
    const view = this.view();
    return QUICK_ACTIONS.map((id) => {
      const reason = view ? this.unavailable(id, view) : "the agent is not in the world";
      return { id, label: QUICK_ACTION_LABELS[id], available: !reason, ...(reason && { reason }) };
    });
  }

  /**
   * Runs one quick action. With goals active, a gathering or combat action becomes the goal; with goals
   * paused it is done once and the agent then stands idle again.
   */
  async runQuickAction(id: QuickActionId): Promise<void> {
    if (id === "stop") return this.pauseGoals();
    if (id === "pickup" || id === "bank") {
      this.halt();
      this.errand = newErrand(id);
      return;
    }
    if (id === "idle") {
      this.halt();
      if (!this.record.goalsPaused) await this.setGoal("idle");
      return;
    }
    if (!this.record.goalsPaused) {
      await this.setGoal(id);
      return;
    }
    const view = this.view();
    const step = view && nextStep(id, view, this.world, undefined);
    if (step) this.send(step);
  }

  private think(): void {
    const view = this.view();
    if (!view) return;
    // An action its owner (or its model) asked for runs on before the goal's rules decide again.
    if (this.directed) {
      if (this.currentAction() !== null) {
        if (this.task) this.runTask();
        return;
      }
      this.directed = false;
    }
    if (this.task) {
      this.runTask();
      return;
    }
    if (this.errand) {
      const step = errandStep(this.errand, view, this.world, this.current);
      if (step === undefined) this.errand = undefined;
      else if (step !== "wait") this.send(step);
      return;
    }
    const goal = this.goal();
    if (this.deps.model && this.modelTurn(goal)) return;
    this.rulesDecide(view, goal);
  }

  /** The rule planner's decision (src/agents/brain.ts): towards the goal, choosing one when it has none. */
  private rulesDecide(view: AgentView, goal: Goal | null): void {
    if (this.record.goalsPaused) {
      // Paused, it chooses no goal itself; one its owner set since is pursued until reached.
      if (!goal || goal.progress >= 1) return;
    } else if (!goal || goal.progress >= 1) {
      this.setGoal(this.chooseGoal(view)).catch((error: unknown) => {
        this.deps.logger.warn(
          { err: error, agentId: this.record.id },
          "an agent could not store its new goal",
        );
      });
      return;
    }
    if (view.inventory.length < INVENTORY_SLOTS) this.bankedWhenFull = false;
    else if (!this.bankedWhenFull && banksWhenFull(goal.type, view, this.world)) {
      this.bankedWhenFull = true;
      this.errand = newErrand("bank");
      return;
    }
    const step = nextStep(goal.type, view, this.world, this.current);
    if (goal.type === "combat") this.chooseStyle(view);
    if (step) this.send(step);
  }

  /**
   * The model's turn, when it has one: an owner's message waits for it, or nothing is under way and the
   * goal is its to pursue. False leaves the decision to the rules (no goal chosen yet, goals paused with
   * nothing asked, or this minute's calls spent).
   */
  private modelTurn(goal: Goal | null): boolean {
    const model = this.deps.model!;
    if (this.deciding) return true;
    const asked = this.instructions.length > 0;
    if (!asked) {
      if (this.record.goalsPaused || !goal || goal.progress >= 1) return false;
      // What it started runs on: the model is asked again once it ends.
      if (this.currentAction() !== null) return true;
    }
    if (!model.canCall()) {
      this.plannerUsed = "rules";
      return false;
    }
    this.deciding = true;
    const instructions = this.instructions.splice(0);
    const input = {
      context: this.context(),
      goal,
      goalsPaused: this.record.goalsPaused,
      instructions,
      recent: [...this.recent],
    };
    model
      .decide(input)
      .then((decision) => this.apply(decision))
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, agentId: this.record.id }, "an agent's model decision failed"),
      )
      .finally(() => {
        this.deciding = false;
      });
    return true;
  }

  /** Carries out the model's decision; one that cannot be carried out is the rules' instead. */
  private async apply(decision: ModelDecision): Promise<void> {
    const model = this.deps.model!;
    if (decision.kind !== "fallback" && decision.say) this.say(decision.say);
    if (decision.kind === "say") {
      this.plannerUsed = model.label;
      return;
    }
    let reason: string;
    if (decision.kind === "action") {
      const result = await this.act(decision.name, decision.params);
      this.remember(decision.name, result.ok ? "ok" : `refused: ${result.reason}`);
      if (result.ok) {
        this.plannerUsed = model.label;
        return;
      }
      reason = `${decision.name} was refused: ${result.ok ? "" : result.reason}`;
    } else reason = decision.reason;
    this.plannerUsed = "rules";
    this.deps.logger.warn(
      { agentId: this.record.id, planner: model.label, reason },
      "an agent's model decision fell back to the rules",
    );
    const view = this.view();
    if (view) this.rulesDecide(view, this.goal());
  }

  private remember(action: string, result: string): void {
    this.recent.push({ action, result });
    if (this.recent.length > RECENT_RESULTS) this.recent.shift();
  }

  /** Says a model's reply in chat, held to the chat rule. */
  private say(text: string): void {
    const said = chatText(text);
    if (typeof said === "string") this.send({ event: "player:chat", data: { message: said } });
  }

  /**
   * The agent's own choice: the gathering skill it has least XP in. Ties go a different way for each
   * agent, so new agents spread over the trees, rocks and fishing spots instead of crowding one.
   */
  private chooseGoal(view: AgentView): GoalType {
    const shift = [...this.record.id].reduce((sum, char) => sum + char.charCodeAt(0), 0);
    const order = GATHERING_GOALS.map((_, i) => GATHERING_GOALS[(i + shift) % GATHERING_GOALS.length]!);
    return order.sort((a, b) => goalXp(a, view.skills) - goalXp(b, view.skills))[0] ?? "idle";
  }

  private unavailable(id: QuickActionId, view: AgentView): string | undefined {
    switch (id) {
      case "woodcutting":
      case "mining":
      case "fishing":
      case "combat":
        return nextStep(id, view, this.world, undefined) ? undefined : "nothing for it within reach";
      case "pickup":
        return pickupStep(view) ? undefined : "no item on the ground in view";
      case "bank":
        return bankStep(view, this.world) ? undefined : "nothing to bank";
      default:
        return undefined;
    }
  }

  /** Fights in the style its fight calls for (see fightingStyle), told to the world when it changes. */
  private chooseStyle(view: AgentView): void {
    const style = fightingStyle(view, this.world, this.current);
    if (style === undefined || style === this.style) return;
    this.style = style;
    this.send({ event: "player:action", data: { action: "combat_style", style } });
  }

  /** Stops the current action and path. */
  private halt(): void {
    this.current = undefined;
    this.errand = undefined;
    this.task = undefined;
    this.send({ event: "player:action", data: { action: "stop" } });
  }

  /** Sends a message as the agent's client; `action` names what it is part of (else read from it). */
  private send(step: Step, action?: CurrentAction): void {
    if (!this.room) return;
    this.room.send(step.event, step.data);
    countAgentDecision(PLANNER);
    const targetId = step.data.targetId;
    // Walking gives up the action under way, as the world does.
    if (step.event === "player:action" || step.event === "player:move") {
      this.current = typeof targetId === "string" ? targetId : undefined;
      this.currentName = action ?? actionOfStep(step);
    }
  }

  /** Who makes its decisions (CONTRACT's `planner`): "rules", or the language model's "<provider>:<model>". */
  planner(): string {
    return this.plannerUsed;
  }

  /** What the agent knows now (see AgentKnowledge): the one source of its providers and actions. */
  knowledge(): AgentKnowledge {
    const sync = this.sync;
    const self = sync ? this.seen.get(sync.id) : undefined;
    return {
      agentId: this.record.id,
      characterId: this.record.characterId,
      name: this.record.name,
      online: this.online,
      sync,
      self,
      entities: [...this.seen.values()].filter((entity) => entity.id !== sync?.id),
      runEnergy: this.runEnergy,
      lastCombatAt: this.lastCombatAt,
      currentAction: this.currentAction(),
      now: Date.now(),
    };
  }

  context(): AgentContext {
    return { know: this.knowledge(), world: this.world };
  }

  /** The action under way (SPEC's name), or null. */
  currentAction(): CurrentAction | null {
    if (this.task) return this.task.action;
    if (this.current && this.seen.has(this.current)) return this.currentName ?? null;
    if (
      this.currentName === "moveTo" ||
      this.currentName === "explore" ||
      this.currentName === "approachEntity"
    ) {
      const self = this.sync && this.seen.get(this.sync.id);
      // A walk is under way until the agent stands still where it was sent.
      if (
        self &&
        this.walkingTo &&
        !(self.position.x === this.walkingTo.x && self.position.z === this.walkingTo.z)
      )
        return this.currentName;
    }
    return null;
  }

  /** Runs one of SPEC's actions with validated parameters (see src/agents/actions). */
  async act(name: ActionName, params: unknown): Promise<ActionResult> {
    const result = await runAction(this.runtime(name), name, params);
    if (result.ok) this.directed = true;
    return result;
  }

  private runTask(): void {
    const task = this.task!;
    const step = task.step(this.context());
    if (step === "done") this.task = undefined;
    else if (step !== "wait") this.send(step, task.action);
  }

  /** What the action `name` may do to the agent; its messages are counted as that action. */
  private runtime(name: ActionName): ActionRuntime {
    return {
      ...this.context(),
      send: (step) => {
        if (step.event === "player:move") this.walkingTo = { x: Number(step.data.x), z: Number(step.data.z) };
        this.send(step, name);
      },
      begin: (task) => {
        this.errand = undefined;
        this.task = task;
        this.taskFailures = 0;
        // Its first message goes now, not at the next decision.
        this.runTask();
      },
      halt: () => this.halt(),
      setGoal: async (type, target) => {
        await this.setGoal(type, target);
      },
    };
  }

  private see({ tick, added, updated, removed }: WorldUpdate): void {
    this.tally.tick = tick;
    for (const entity of [...added, ...updated]) {
      this.seen.set(entity.id, entity);
      // A depleted target ends the action on it: the same resource, respawned, is a new start.
      if (entity.id === this.current && entity.depleted) this.current = undefined;
    }
    for (const id of removed) {
      this.seen.delete(id);
      // A target gone from view (a monster killed, an item picked up) ends the action on it: should it
      // come back with the same id (a monster respawns so), the agent starts afresh rather than wait.
      if (id === this.current) this.current = undefined;
    }
    // The tick's decision, once what the update says is known.
    this.clock.tick(tick);
  }

  /** What the agent knows now: its latest player:sync and the entities in view. */
  private view(): AgentView | undefined {
    const sync = this.sync;
    if (!sync || !this.room) return undefined;
    const entities = [...this.seen.values()];
    const self = this.seen.get(sync.id);
    return {
      self: {
        id: sync.id,
        position: self?.position ?? sync.position,
        health: self?.health ?? sync.health,
        maxHealth: sync.maxHealth,
      },
      inventory: sync.inventory,
      equipment: sync.equipment,
      bank: sync.bank,
      skills: sync.skills,
      entities: entities.filter((entity) => entity.id !== sync.id),
    };
  }
}

/**
 * Leaves the world for good. A connection that dropped is brought back by the SDK on its own: a leave
 * sent meanwhile goes nowhere and would be waited on until the SDK gave up, while the reconnection put
 * the character back in the world with nobody playing it. So nothing reconnects from here on, a
 * reconnection already under way leaves once it is through, and only a leave that can be sent is
 * waited for (the world lets go of a dropped seat nobody takes back).
 */
async function leaveForGood(room: Room): Promise<void> {
  room.reconnection.enabled = false;
  room.onReconnect(() => {
    room.leave(true).catch(() => {});
  });
  if (room.connection.isOpen) await room.leave(true).catch(() => {});
}
