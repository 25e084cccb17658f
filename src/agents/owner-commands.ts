// What an agent does with its owner's orders from the dashboard: a message (a quick action's name, a
// drop command, an instruction for its language model, or a line to say) and the quick actions.
import {
  type AgentView,
  type Errand,
  type GoalType,
  newErrand,
  nextStep,
  parseDropCommand,
  type Step,
  type WorldKnowledge,
} from "./brain.js";
import { isQuickAction, type QuickActionId, quickActionList } from "./quick-actions.js";

/** The agent an owner orders, as OwnerCommands uses it. */
export interface CommandedAgent {
  world: WorldKnowledge;
  goalsPaused(): boolean;
  /** What the agent knows now, while in the world. */
  view(): AgentView | undefined;
  /** Stops the current action and path, and gives up the model's decision under way. */
  halt(): void;
  startErrand(errand: Errand): void;
  setGoal(type: GoalType): Promise<unknown>;
  pauseGoals(): Promise<void>;
  /** Hands an instruction to its language model; undefined when it has none. */
  instruct: ((text: string) => void) | undefined;
  send(step: Step): void;
}

export class OwnerCommands {
  constructor(private readonly agent: CommandedAgent) {}

  /**
   * A message from the dashboard: a quick action's name runs it, `drop all [item]` drops (see
   * parseDropCommand); any other text is an instruction for its language model, or without one is
   * said in chat.
   */
  async message(text: string): Promise<void> {
    const command = text.trim().toLowerCase();
    const drop = parseDropCommand(text, this.agent.world.data);
    if (isQuickAction(command)) await this.runQuickAction(command);
    else if (drop) {
      this.agent.halt();
      this.agent.startErrand(newErrand("drop", drop.itemId));
    } else if (this.agent.instruct) this.agent.instruct(text.trim());
    else this.agent.send({ event: "player:chat", data: { message: text } });
  }

  quickActions(): { id: QuickActionId; label: string; available: boolean; reason?: string }[] {
    return quickActionList(this.agent.view(), this.agent.world);
  }

  /**
   * Runs one quick action. With goals active, a gathering or combat action becomes the goal; with goals
   * paused it is done once and the agent then stands idle again.
   */
  async runQuickAction(id: QuickActionId): Promise<void> {
    if (id === "stop") return this.agent.pauseGoals();
    if (id === "pickup" || id === "bank") {
      this.agent.halt();
      this.agent.startErrand(newErrand(id));
      return;
    }
    if (id === "idle") {
      this.agent.halt();
      if (!this.agent.goalsPaused()) await this.agent.setGoal("idle");
      return;
    }
    if (!this.agent.goalsPaused()) {
      await this.agent.setGoal(id);
      return;
    }
    const view = this.agent.view();
    const step = view && nextStep(id, view, this.agent.world, undefined);
    if (step) this.agent.send(step);
  }
}
