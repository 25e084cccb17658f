// The rule planner's decision (src/agents/brain.ts) for one agent: towards its goal, choosing one when
// it has none, banking a full inventory on the way, and fighting in the style its fight calls for.
import { cooksFood } from "../game/cooking.js";
import { chebyshev } from "../game/tile.js";
import { INVENTORY_SLOTS, type Tile } from "../game/types.js";
import {
  type AgentView,
  banksWhenFull,
  type Errand,
  GATHERING_GOALS,
  type Goal,
  type GoalType,
  goalXp,
  newErrand,
  nextStep,
  type Step,
  type WorldKnowledge,
} from "./brain.js";
import { fightingStyle } from "./planners/fighter.js";

/** What the rules need of their agent. */
export interface RulesHost {
  /** Its character's name. */
  name: string;
  world: WorldKnowledge;
  goalsPaused(): boolean;
  /** The target of the action under way. */
  target(): string | undefined;
  send(step: Step): void;
  /** How many messages the agent has sent so far. */
  sent(): number;
  /** Sets the goal the rules chose (stored in the background). */
  chose(type: GoalType): void;
  startErrand(errand: Errand): void;
}

export class RulesTurn {
  /** It went to bank a full inventory: while that inventory stays full (the bank refused), it drops instead. */
  private bankedWhenFull = false;
  /** The combat style chosen in this session (the world starts every session at accurate). */
  private style: string | undefined;
  /** The raw food it last asked the world to cook, and where it stood at its last decision since. */
  private cooking: { rawItemId: string; at: Tile } | undefined;
  /**
   * The tile its last walk was sent to, where it stood at its last decision since, and how many messages
   * the agent had sent then (another message since may have taken it elsewhere).
   */
  private walking: { to: Tile; at: Tile; sent: number } | undefined;

  constructor(private readonly host: RulesHost) {}

  /** A new session: the world starts it at its default combat style. */
  newSession(): void {
    this.style = undefined;
    this.cooking = undefined;
    this.walking = undefined;
  }

  /** The world refused a message: what it asked to cook is not being cooked, nor a walk walked. */
  refused(): void {
    this.cooking = undefined;
    this.walking = undefined;
  }

  decide(view: AgentView, goal: Goal | null): void {
    const { world } = this.host;
    if (this.host.goalsPaused()) {
      // Paused, it chooses no goal itself; one its owner set since is pursued until reached.
      if (!goal || goal.progress >= 1) return;
    } else if (!goal || goal.progress >= 1) {
      this.host.chose(this.chooseGoal(view));
      return;
    }
    if (view.inventory.length < INVENTORY_SLOTS) this.bankedWhenFull = false;
    else if (!this.bankedWhenFull && banksWhenFull(goal.type, view, world)) {
      this.bankedWhenFull = true;
      this.host.startErrand(newErrand("bank"));
      return;
    }
    if (this.stillCooking(view)) return;
    const step = nextStep(goal.type, view, world, this.host.target());
    if (goal.type === "combat") this.chooseStyle(view);
    if (!step) return;
    const to = step.event === "player:move" ? { x: Number(step.data.x), z: Number(step.data.z) } : undefined;
    const here = view.self.position;
    if (to && this.walksOn(to, here)) {
      this.walking = { to, at: here, sent: this.host.sent() };
      return;
    }
    this.host.send(step);
    this.walking = to && { to, at: here, sent: this.host.sent() };
    this.cooking = cookedBy(step, view);
  }

  /**
   * Whether a walk to `to` is under way: its last, sent to the same tile with nothing sent since, and
   * moving since the last decision. The world keeps a walk's path; asked again, it would only plan it
   * again. A walk that stopped (the agent stands where it stood) is asked again.
   */
  private walksOn(to: Tile, here: Tile): boolean {
    const last = this.walking;
    if (!last || last.sent !== this.host.sent()) return false;
    const moved = here.x !== last.at.x || here.z !== last.at.z;
    return moved && to.x === last.to.x && to.z === last.to.z;
  }

  /**
   * The world cooks the raw food asked for one item after another, walking there first: asked again
   * meanwhile, its view a tick old, the agent named slots the world had just cooked (refused: "You
   * cannot cook Cooked chicken"). So it waits while it walks or stands beside a fire or range with some
   * of that raw food left.
   */
  private stillCooking(view: AgentView): boolean {
    if (!this.cooking) return false;
    const { rawItemId, at } = this.cooking;
    const here = view.self.position;
    const walking = here.x !== at.x || here.z !== at.z;
    const beside = view.entities.some(
      (entity) =>
        cooksFood(this.host.world.data.stations.get(entity.type)) && chebyshev(entity.position, here) <= 1,
    );
    if ((walking || beside) && view.inventory.some((entry) => entry.itemId === rawItemId)) {
      this.cooking.at = here;
      return true;
    }
    this.cooking = undefined;
    return false;
  }

  /**
   * The agent's own choice: the gathering skill it has least XP in. Ties go a different way for each
   * agent's name, so new agents spread over the trees, rocks and fishing spots instead of crowding one,
   * and an agent chooses the same run after run.
   */
  private chooseGoal(view: AgentView): GoalType {
    const shift = [...this.host.name].reduce((sum, char) => sum + char.charCodeAt(0), 0);
    const order = GATHERING_GOALS.map((_, i) => GATHERING_GOALS[(i + shift) % GATHERING_GOALS.length]!);
    return order.sort((a, b) => goalXp(a, view.skills) - goalXp(b, view.skills))[0] ?? "idle";
  }

  /** Fights in the style its fight calls for (see fightingStyle), told to the world when it changes. */
  private chooseStyle(view: AgentView): void {
    const style = fightingStyle(view, this.host.world, this.host.target());
    if (style === undefined || style === this.style) return;
    this.style = style;
    this.host.send({ event: "player:action", data: { action: "combat_style", style } });
  }
}

/** The raw food a step asks the world to cook, and where the agent stood when it asked. */
function cookedBy(step: Step, view: AgentView): { rawItemId: string; at: Tile } | undefined {
  if (step.event !== "player:action" || step.data.action !== "cook") return undefined;
  const raw = view.inventory.find((entry) => entry.slot === step.data.inventorySlot);
  return raw && { rawItemId: raw.itemId, at: view.self.position };
}
