// What an autonomous agent does next, decided from what it sees: plain rules over the same events and
// entities a client gets, so they can be tested without a server. The agent (src/agents/agent.ts) sends
// the chosen message as any client would.
import { canReachBank } from "../game/bank.js";
import type { InventoryEntry } from "../game/character-state.js";
import { bestTool } from "../game/gathering.js";
import { countItem } from "../game/inventory.js";
import type { WorldMap } from "../game/map.js";
import type { EquipSlot, GameData, GatheringSkill, ItemType, SkillName, Tile } from "../game/types.js";
import { INVENTORY_SLOTS } from "../game/types.js";
import type { WorldEntity } from "../game/world-types.js";
import { levelForXp } from "../game/xp.js";
import { levelsOf } from "./planners/fight-math.js";
import { fightStep } from "./planners/fighter.js";
import { nearest, walkToSoonest, walkTowards } from "./planners/places.js";

export const GOAL_TYPES = ["woodcutting", "mining", "fishing", "combat", "idle"] as const;
export type GoalType = (typeof GOAL_TYPES)[number];

const GOAL_DESCRIPTIONS: Record<GoalType, string> = {
  woodcutting: "Chop trees for woodcutting XP.",
  mining: "Mine rocks for mining XP.",
  fishing: "Catch fish for fishing XP.",
  combat: "Fight monsters a new character can beat, for combat XP.",
  idle: "Stand still and wait for commands.",
};

/** The XP a goal that names no target aims to gain. */
export const DEFAULT_GOAL_XP = 500;

/** The skills whose XP counts towards each goal. */
const GOAL_SKILLS: Record<GoalType, readonly SkillName[]> = {
  woodcutting: ["woodcutting"],
  mining: ["mining"],
  fishing: ["fishing"],
  combat: ["attack", "strength", "defence", "ranged", "constitution"],
  idle: [],
};

export interface Goal {
  id: string;
  type: GoalType;
  description: string;
  /** XP to gain in the goal's skills. */
  target?: number;
  /** 0..1: the share of the target gained so far. */
  progress: number;
  startedAt: string;
}

export function availableGoals(): { type: GoalType; description: string }[] {
  return GOAL_TYPES.map((type) => ({ type, description: GOAL_DESCRIPTIONS[type] }));
}

export function describeGoal(type: GoalType): string {
  return GOAL_DESCRIPTIONS[type];
}

/** What the agent's rules read of an entity it sees, as its world:update messages describe it. */
export type SeenEntity = Pick<WorldEntity, "id" | "kind" | "type" | "position" | "health" | "depleted">;

/** What the agent knows when it decides. */
export interface AgentView {
  self: { id: string; position: Tile; health: number; maxHealth: number };
  inventory: readonly InventoryEntry[];
  /** What it wears, and what its bank holds, as its player:sync says. */
  equipment?: Partial<Record<EquipSlot, string>>;
  bank?: readonly { itemId: string; quantity: number }[];
  skills: Readonly<Record<SkillName, { xp: number }>>;
  entities: readonly SeenEntity[];
  /** The monsters that struck it lately (see ATTACKED_WITHIN_TICKS): the fight it fled may chase it. */
  attackedBy?: readonly string[];
  /** The world tick it decides on, and when each depleted resource it saw comes back (see DepletedPlaces). */
  tick?: number;
  comesBack?: ReadonlyMap<string, number>;
}

/** A message to send, as a client sends it. */
export interface Step {
  event: string;
  data: Record<string, unknown>;
}

/** The total XP of a goal's skills (its progress is how much this grows). */
export function goalXp(type: GoalType, skills: AgentView["skills"]): number {
  return GOAL_SKILLS[type].reduce((sum, skill) => sum + (skills[skill]?.xp ?? 0), 0);
}

const GATHERING: Partial<Record<GoalType, GatheringSkill>> = {
  woodcutting: "woodcutting",
  mining: "mining",
  fishing: "fishing",
};

/** The goals of the gathering skills, which an agent chooses among by itself. */
export const GATHERING_GOALS = Object.keys(GATHERING) as GoalType[];

/** What the agent knows of the world beyond its view: the map and the game data, as a player would. */
export interface WorldKnowledge {
  data: GameData;
  map: WorldMap;
}

/**
 * The next message towards the goal, or undefined to let the current action run on. `current` is the
 * target of the action last started: while it is still there (and not depleted), the agent keeps at it.
 * With nothing for the goal in view, it walks towards where the map puts some.
 */
export function nextStep(
  type: GoalType,
  view: AgentView,
  world: WorldKnowledge,
  current: string | undefined,
): Step | undefined {
  const skill = GATHERING[type];
  if (skill) return gatherStep(skill, view, world, current);
  if (type === "combat") return fightStep(view, world, current);
  return undefined;
}

export function gatherStep(
  skill: GatheringSkill,
  view: AgentView,
  { data, map }: WorldKnowledge,
  current: string | undefined,
): Step | undefined {
  if (view.inventory.length >= INVENTORY_SLOTS) {
    // A full inventory the agent could not bank (see banksWhenFull): make room by dropping what
    // gathering gives (never the tools).
    const products = new Set([...data.gathering.values()].map((def) => def.itemId));
    const product = view.inventory.find((entry) => products.has(entry.itemId));
    return product && { event: "player:action", data: { action: "drop", inventorySlot: product.slot } };
  }
  if (current && view.entities.some((entity) => entity.id === current && !entity.depleted)) return undefined;
  const level = levelForXp(view.skills[skill]?.xp ?? 0);
  const carried = [...view.inventory.map((entry) => entry.itemId), ...Object.values(view.equipment ?? {})];
  const levels = levelsOf(view);
  // Without its tool the world refuses every attempt: such a resource is not one it can gather.
  const usable = (resourceId: string) => {
    const def = data.gathering.get(resourceId);
    return (
      def?.skill === skill &&
      def.levelRequired <= level &&
      bestTool(carried, skill, def.toolKind, levels, data.tools) !== undefined
    );
  };
  const target = nearest(
    view,
    view.entities.filter((entity) => entity.kind === "resource" && !entity.depleted && usable(entity.type)),
  );
  if (!target) {
    // Those in view are depleted: to the place whose resource it can gather soonest, the walk and the
    // respawn counted (it remembers the depleted ones out of view, so it does not walk back to them).
    const places = data.areas.flatMap((area) => area.resources).filter((place) => usable(place.resourceId));
    return walkToSoonest(view, places, map);
  }
  const action = skill === "woodcutting" ? "chop" : skill === "mining" ? "mine" : "fish";
  return { event: "player:action", data: { action, targetId: target.id } };
}

/** The melee styles an agent trains with, each by the skill it trains. */
const TRAINING_STYLES = [
  ["accurate", "attack"],
  ["aggressive", "strength"],
  ["defensive", "defence"],
] as const;

/** The melee style that trains whichever of attack, strength and defence has the least XP. */
export function trainingStyle(view: AgentView): (typeof TRAINING_STYLES)[number][0] {
  const xp = (skill: SkillName) => view.skills[skill]?.xp ?? 0;
  let best: (typeof TRAINING_STYLES)[number] = TRAINING_STYLES[0];
  for (const style of TRAINING_STYLES) if (xp(style[1]) < xp(best[1])) best = style;
  return best[0];
}

/** The nearest ground item in view, to pick up. */
export function pickupStep(view: AgentView): Step | undefined {
  const item = nearest(
    view,
    view.entities.filter((entity) => entity.kind === "item"),
  );
  return item && { event: "player:action", data: { action: "pickup", targetId: item.id } };
}

/**
 * Whether a gatherer's inventory is full and a bank booth is within reach: it then banks, as a player
 * would, instead of dropping what it gathered.
 */
export function banksWhenFull(type: GoalType, view: AgentView, world: WorldKnowledge): boolean {
  return GATHERING[type] !== undefined && view.inventory.length >= INVENTORY_SLOTS && !!bankStep(view, world);
}

/** What an agent keeps when it banks: what it works and fights with, as a player would. */
const KIT: ReadonlySet<ItemType> = new Set(["tool", "weapon", "armor", "ammunition", "food"]);

/**
 * Banking: walk next to the nearest bank booth, then deposit what the agent gathered or picked up, and
 * its coins (its kit stays: tools and tinderbox, what it wields or wears, arrows, food), an item at a
 * time (a deposit of an unstackable item takes it from every slot). Undefined once there is nothing
 * left to deposit (or no booth can be reached).
 */
export function bankStep(view: AgentView, { data, map }: WorldKnowledge): Step | undefined {
  const deposits = view.inventory.filter((entry) => !KIT.has(data.items.get(entry.itemId)?.type ?? "misc"));
  const [entry] = deposits;
  if (!entry) return undefined;
  const booths = data.areas.flatMap((area) => area.banks);
  if (canReachBank(view.self.position, booths)) {
    const quantity = countItem(view.inventory, entry.itemId);
    return { event: "bank:deposit", data: { inventorySlot: entry.slot, quantity } };
  }
  return walkTowards(view, booths, map);
}

/** The interface's safety cap: one drop command drops at most this many inventory entries. */
export const MAX_DROPS_PER_COMMAND = 50;
/** An errand gives up after this many refusals in a row (the world is not what it looked). */
export const MAX_ERRAND_FAILURES = 3;

/**
 * A dashboard command that runs until it has nothing left to do, then leaves the agent idle: picking
 * up, banking, or dropping (of one item when `itemId` is set, else everything).
 */
export interface Errand {
  kind: "pickup" | "bank" | "drop";
  itemId?: string;
  /** Entries dropped so far. */
  dropped: number;
  /** Refusals in a row: the agent counts them, and a message the world takes resets them. */
  failures: number;
}

export function newErrand(kind: Errand["kind"], itemId?: string): Errand {
  return { kind, ...(itemId !== undefined && { itemId }), dropped: 0, failures: 0 };
}

/**
 * The dashboard's drop command: `drop all` (everything), or `drop <item>` / `drop all <item>` (every
 * entry of one item, named by id or name). Undefined for any other text.
 */
export function parseDropCommand(text: string, data: GameData): { itemId?: string } | undefined {
  const match = /^drop(?:\s+all)?(?:\s+(.+))?$/i.exec(text.trim());
  if (!match) return undefined;
  const named = match[1]?.trim().toLowerCase();
  if (!named) return /^drop\s+all$/i.test(text.trim()) ? {} : undefined;
  const item = [...data.items.values()].find(
    (def) => def.id === named || def.id === named.replaceAll(" ", "_") || def.name.toLowerCase() === named,
  );
  return item ? { itemId: item.id } : undefined;
}

/** The next entry to drop (all of them, or those of `itemId`), undefined once none is left. */
export function dropStep(view: AgentView, itemId: string | undefined): Step | undefined {
  const entry = view.inventory.find((candidate) => itemId === undefined || candidate.itemId === itemId);
  return entry && { event: "player:action", data: { action: "drop", inventorySlot: entry.slot } };
}

/**
 * The errand's next message; "wait" while the pickup it started is under way; undefined once it is
 * done, has dropped the interface's cap, or has failed MAX_ERRAND_FAILURES times in a row. `current` is the
 * target of the action last started.
 */
export function errandStep(
  errand: Errand,
  view: AgentView,
  world: WorldKnowledge,
  current: string | undefined,
): Step | "wait" | undefined {
  if (errand.failures >= MAX_ERRAND_FAILURES) return undefined;
  switch (errand.kind) {
    case "pickup":
      // Walking to the item, or about to lift it: the pickup under way goes on.
      if (current && view.entities.some((entity) => entity.id === current)) return "wait";
      return pickupStep(view);
    case "bank":
      return bankStep(view, world);
    case "drop": {
      if (errand.dropped >= MAX_DROPS_PER_COMMAND) return undefined;
      const step = dropStep(view, errand.itemId);
      if (step) errand.dropped++;
      return step;
    }
  }
}
