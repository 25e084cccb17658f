// The language model's part in an agent's decisions: when it is asked (an owner's message waits, or
// nothing is under way towards the goal), and how its answer is carried out, the rules taking over
// when it cannot be.

import type { Logger } from "../telemetry/logger.js";
import type { CurrentAction } from "./actions/step-names.js";
import type { ActionName, ActionResult } from "./actions/types.js";
import type { Goal } from "./brain.js";
import type { AgentContext } from "./knowledge.js";
import type { ModelDecision, ModelPlanner } from "./planners/model-planner.js";

/** How many of the model's last actions (with their answers) it is reminded of. */
const RECENT_RESULTS = 5;

/** What the model's turns need of their agent. */
export interface ModelHost {
  agentId: string;
  logger: Logger;
  context(): AgentContext;
  goalsPaused(): boolean;
  currentAction(): CurrentAction | null;
  act(name: ActionName, params: unknown): Promise<ActionResult>;
  /** Says the text in chat (held to the chat rule). */
  say(text: string): void;
  /** The rules decide instead (the model's decision could not be carried out). */
  rulesDecide(): void;
}

export class ModelTurns {
  /** Who made the last decision: the model's label, or "rules" (it fell back). */
  planner: string;
  /** Why the rules made it, while they do: the model's failure, or why it could not be asked. */
  plannerReason: string | undefined;
  /** The owner's messages waiting for the model, and the model's last actions with their answers. */
  private readonly instructions: string[] = [];
  private readonly recent: { action: string; result: string }[] = [];
  /** The model call under way, whose answer is carried out unless it is given up (see cancel). */
  private pending: AbortController | undefined;

  constructor(
    private readonly model: ModelPlanner,
    private readonly host: ModelHost,
  ) {
    this.planner = model.label;
  }

  /** An owner's message for the model; the oldest go when many wait (it is asked a few times a minute). */
  instruct(text: string): void {
    this.instructions.push(text);
    if (this.instructions.length > RECENT_RESULTS) this.instructions.shift();
  }

  /** Instructions a call failed to deliver wait for the next, before any that came since. */
  private returnUnread(instructions: readonly string[]): void {
    this.instructions.unshift(...instructions);
    this.instructions.splice(0, Math.max(0, this.instructions.length - RECENT_RESULTS));
  }

  /**
   * The model's turn for an owner's message that waits, ahead of whatever the agent has under way (a
   * follow never ends by itself, a long walk would keep the owner waiting): false when none waits, or
   * a call is out already.
   */
  takeInstructions(goal: Goal | null): boolean {
    if (this.pending || this.instructions.length === 0) return false;
    return this.take(goal);
  }

  /**
   * The model's turn, when it has one: an owner's message waits for it, or nothing is under way and the
   * goal is its to pursue. False leaves the decision to the rules (no goal chosen yet, goals paused with
   * nothing asked, or this minute's calls spent).
   */
  take(goal: Goal | null): boolean {
    if (this.pending) return true;
    const asked = this.instructions.length > 0;
    if (!asked) {
      if (this.host.goalsPaused() || !goal || goal.progress >= 1) return false;
      // What it started runs on: the model is asked again once it ends.
      if (this.host.currentAction() !== null) return true;
    }
    const whyNot = this.model.whyNotCall();
    if (whyNot) {
      this.planner = "rules";
      this.plannerReason = whyNot;
      return false;
    }
    const call = new AbortController();
    this.pending = call;
    const instructions = this.instructions.splice(0);
    const input = {
      context: this.host.context(),
      goal,
      goalsPaused: this.host.goalsPaused(),
      instructions,
      recent: [...this.recent],
    };
    this.model
      .decide(input, call.signal)
      .then((decision) => {
        // Given up (a new goal, a halt): its answer is not carried out, so the owner's messages wait on.
        if (call.signal.aborted) return this.returnUnread(instructions);
        // The model never read them: the provider failed, or its answer could not be read.
        if (decision.kind === "fallback" && !decision.answered) this.returnUnread(instructions);
        return this.apply(decision, instructions.length > 0);
      })
      .catch((error: unknown) => {
        this.returnUnread(instructions);
        this.host.logger.warn({ err: error, agentId: this.host.agentId }, "an agent's model decision failed");
      })
      .finally(() => {
        if (this.pending === call) this.pending = undefined;
      });
    return true;
  }

  /**
   * Gives up the model's decision under way, if any: its owner stopped the agent, gave it another goal
   * or deleted it. The request is cut (a provider bills what it goes on writing), and its answer is
   * neither carried out nor said; the owner's messages it carried wait for the next call.
   */
  cancel(): void {
    this.pending?.abort();
  }

  /**
   * Carries out the model's decision; one that cannot be carried out is the rules' instead. Its words are
   * said only in answer to its owner (`asked`): unasked, words alone are no decision, and asking again at
   * once would spend the minute's calls and fill the chat.
   */
  private async apply(answer: ModelDecision, asked: boolean): Promise<void> {
    const decision: ModelDecision =
      asked || answer.kind !== "say"
        ? answer
        : { kind: "fallback", reason: "the model answered in words, not with an action", answered: true };
    if (asked && decision.kind !== "fallback" && decision.say) this.host.say(decision.say);
    if (decision.kind === "say") {
      this.modelDecided();
      return;
    }
    let reason: string;
    if (decision.kind === "action") {
      const result = await this.host.act(decision.name, decision.params);
      this.remember(decision.name, result.ok ? "ok" : `refused: ${result.reason}`);
      if (result.ok) {
        this.modelDecided();
        return;
      }
      reason = `${decision.name} was refused: ${result.ok ? "" : result.reason}`;
    } else {
      reason = decision.reason;
      // Told at its next turn, so that it can answer differently.
      if (decision.answered) this.remember("your last answer", `not carried out: ${reason}`);
    }
    this.planner = "rules";
    this.plannerReason = reason;
    this.host.logger.warn(
      { agentId: this.host.agentId, planner: this.model.label, reason },
      "an agent's model decision fell back to the rules",
    );
    this.host.rulesDecide();
  }

  private modelDecided(): void {
    this.planner = this.model.label;
    this.plannerReason = undefined;
  }

  private remember(action: string, result: string): void {
    this.recent.push({ action, result });
    if (this.recent.length > RECENT_RESULTS) this.recent.shift();
  }
}
