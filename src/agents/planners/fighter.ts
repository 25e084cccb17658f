// The combat goal's rules: fight the monster that gives the most XP for the time (its walk, the fight,
// and the food the fight costs), in the style that soonest makes it hit harder; eat only when a hit
// could put it in danger or before a fight it could not otherwise win; keep its loot's food and gear;
// and, out of food, cook what it carries in one go, take food from the bank, buy some, or catch some.
import type { CombatStyle } from "../../game/combat.js";
import { cooksFood } from "../../game/cooking.js";
import { chebyshev } from "../../game/tile.js";
import type { GameData, NpcDef, Tile } from "../../game/types.js";
import { INVENTORY_SLOTS } from "../../game/types.js";
import {
  type AgentView,
  gatherStep,
  type SeenEntity,
  type Step,
  trainingStyle,
  type WorldKnowledge,
} from "../brain.js";
import { buyFoodStep, cookStep, gearStep, hasFood, isWinnable, withdrawStep } from "./competence.js";
import { bestStyle, canWin, type FightOdds, fightOdds, xpRate } from "./fight-math.js";
import { nearest, walkTowards } from "./places.js";

/** Monsters up to this combat level may be fought whatever the agent's own level (see isWinnable). */
const SAFE_MONSTER_LEVEL = 5;
/**
 * A monster is worth fighting at all when, from full health with the food it carries, half as much again
 * as a fight's average cost leaves it standing; each fight then starts on the average (it flees when low).
 */
const BAD_LUCK = 1.5;
/** Loot this near (tiles) is worth the walk. */
const LOOT_RANGE = 6;
/** How many fish it catches before it cooks them. */
const FISH_TO_CATCH = 4;

/** The food and gear worth picking up: what heals (cooked or raw), coins, and what it could wear. */
function isLoot(data: GameData, itemId: string): boolean {
  const item = data.items.get(itemId);
  return (
    (item?.heals ?? 0) > 0 || data.cooking.has(itemId) || itemId === "coins" || item?.equipSlot !== undefined
  );
}

/** Burnt food: nothing but weight. */
function isJunk(data: GameData, itemId: string): boolean {
  return [...data.cooking.values()].some((recipe) => recipe.burntItemId === itemId);
}

/** Health carried as food. */
function foodHealth(view: AgentView, data: GameData): number {
  return view.inventory.reduce(
    (sum, entry) => sum + (data.items.get(entry.itemId)?.heals ?? 0) * entry.quantity,
    0,
  );
}

/** At or below this health a hit could start to matter: it eats, or without food flees. */
export function eatBelow(maxHit: number): number {
  return 2 * maxHit + 1;
}

/** The food that fills the health it lacks best: the largest bite that wastes none, else the smallest. */
function bite(view: AgentView, data: GameData): Step | undefined {
  const missing = view.self.maxHealth - view.self.health;
  const foods = view.inventory
    .map((entry) => ({ entry, heals: data.items.get(entry.itemId)?.heals ?? 0 }))
    .filter(({ heals }) => heals > 0)
    .sort((a, b) => a.heals - b.heals);
  const choice = foods.filter(({ heals }) => heals <= missing).at(-1) ?? foods[0];
  return choice && { event: "inventory:use", data: { inventorySlot: choice.entry.slot } };
}

/** The style it fights `npc` in: the one that soonest makes it hit harder, else its weakest skill's. */
export function styleAgainst(view: AgentView, data: GameData, npc: NpcDef): CombatStyle {
  const weapon = view.equipment?.weapon;
  const ranged = weapon !== undefined && data.items.get(weapon)?.combatType === "ranged";
  return bestStyle(view, data, npc) ?? (ranged ? "rapid" : trainingStyle(view));
}

interface Choice {
  npc: NpcDef;
  odds: FightOdds;
  rate: number;
  /** The monster in view, or where one spawns. */
  target: SeenEntity | Tile;
}

/**
 * The monsters it would fight, in view or at their spawns, each rated in XP per tick (best first): those
 * it can beat from full health with the food it carries.
 */
function choices(view: AgentView, { data }: WorldKnowledge): Choice[] {
  const from = view.self.position;
  const food = foodHealth(view, data);
  const rated = (npcId: string, target: SeenEntity | Tile, position: Tile): Choice | undefined => {
    const npc = data.npcs.get(npcId);
    if (!npc || !isWinnable(data, npcId, view, SAFE_MONSTER_LEVEL)) return undefined;
    const odds = fightOdds(view, data, npc, styleAgainst(view, data, npc));
    if (!canWin(odds, view.self.maxHealth, food, BAD_LUCK)) return undefined;
    return { npc, odds, rate: xpRate(odds, chebyshev(position, from)), target };
  };
  const inView = view.entities
    .filter((entity) => entity.kind === "npc" && (entity.health ?? 1) > 0)
    .map((entity) => rated(entity.type, entity, entity.position));
  const spawns = data.areas
    .flatMap((area) => area.npcSpawns)
    .map((spawn) => rated(spawn.npcId, { x: spawn.x, z: spawn.z }, spawn));
  return [...inView, ...spawns]
    .filter((choice): choice is Choice => choice !== undefined && choice.rate > 0)
    .sort((a, b) => b.rate - a.rate);
}

function isSeen(target: SeenEntity | Tile): target is SeenEntity {
  return "id" in target;
}

/** The monster it fights next: the best rated in view; or, with none in view, the spawn rated best. */
export function chooseFight(view: AgentView, world: WorldKnowledge): Choice | undefined {
  const all = choices(view, world);
  return all.find((choice) => isSeen(choice.target)) ?? all[0];
}

/** The style for the fight under way (`current`), else for the one it would choose. */
export function fightingStyle(
  view: AgentView,
  world: WorldKnowledge,
  current: string | undefined,
): CombatStyle | undefined {
  const under = view.entities.find((entity) => entity.id === current && entity.kind === "npc");
  const npc = under ? world.data.npcs.get(under.type) : chooseFight(view, world)?.npc;
  return npc && styleAgainst(view, world.data, npc);
}

/** A fight the agent is in: the monster it fights, as seen and as the game data describes it. */
interface Fight {
  seen: SeenEntity;
  foe: NpcDef;
}

/**
 * The fight under way: the monster it attacks (`current`, the target of the action last started), else
 * one still striking it (one it fled, or one that set upon it while it did something else).
 */
function fightUnderWay(view: AgentView, data: GameData, current: string | undefined): Fight | undefined {
  const target = view.entities.find((entity) => entity.id === current && entity.kind === "npc");
  const seen =
    target ?? view.entities.find((entity) => entity.kind === "npc" && view.attackedBy?.includes(entity.id));
  const foe = seen && data.npcs.get(seen.type);
  return seen && foe && { seen, foe };
}

/** In a fight: at low health it eats, or with no food flees unless what the monster has left is sure to be won. */
function lowHealthStep(view: AgentView, data: GameData, { seen, foe }: Fight): Step | undefined {
  const { health } = view.self;
  const odds = fightOdds(view, data, foe, styleAgainst(view, data, foe));
  if (health > eatBelow(odds.maxHit)) return undefined;
  const food = bite(view, data);
  if (food) return food;
  const left = (seen.health ?? 1) / (foe.combat?.constitution ?? 1);
  const rest = { ...odds, damageTaken: odds.damageTaken * left };
  return canWin(rest, health, 0) ? undefined : { event: "player:action", data: { action: "flee" } };
}

/**
 * What a fight calls for at low health, whatever the agent is doing and whoever decides its moves (its
 * goal's rules, its owner or its language model, whose answer can take many ticks): it eats, or flees
 * (see lowHealthStep). Undefined while its health holds, or when nothing fights it.
 */
export function survivalStep(
  view: AgentView,
  world: WorldKnowledge,
  current: string | undefined,
): Step | undefined {
  const fight = fightUnderWay(view, world.data, current);
  return fight && lowHealthStep(view, world.data, fight);
}

/**
 * The combat goal's next message, or undefined to let what is under way run on. `current` is the
 * target of the action last started.
 */
export function fightStep(
  view: AgentView,
  world: WorldKnowledge,
  current: string | undefined,
): Step | undefined {
  const { data } = world;
  const { health } = view.self;
  // Until the fight under way stops, the agent eats or runs, and turns back to nothing else (cooking, looting).
  const fight = fightUnderWay(view, data, current);
  if (fight) return lowHealthStep(view, data, fight);
  const under = view.entities.find((entity) => entity.id === current);
  // A pickup under way: it runs on.
  if (under?.kind === "item") return undefined;
  const kit = gearStep(view, data) ?? junkStep(view, data) ?? lootStep(view, data);
  if (kit) return kit;
  const choice = chooseFight(view, world);
  if (!choice) return provisionStep(view, world, current);
  const food = foodHealth(view, data);
  if (!canWin(choice.odds, health, food)) {
    // Too low for this fight even eating what it carries: it gets food first (its health comes back
    // meanwhile), or eats what it has.
    return provisionStep(view, world, current) ?? bite(view, data);
  }
  // Too low to start a fight: it eats, or with nothing cooked gets food rather than wait for its health.
  if (health <= eatBelow(choice.odds.maxHit)) return bite(view, data) ?? provisionStep(view, world, current);
  if (isSeen(choice.target))
    return { event: "player:action", data: { action: "attack", targetId: choice.target.id } };
  return walkTowards(view, [choice.target], world.map);
}

/** Drops burnt food, which only takes room. */
function junkStep(view: AgentView, data: GameData): Step | undefined {
  const junk = view.inventory.find((entry) => isJunk(data, entry.itemId));
  return junk && { event: "player:action", data: { action: "drop", inventorySlot: junk.slot } };
}

/** Picks up food, raw food, coins and gear lying near (its kills' drops), while it has room. */
function lootStep(view: AgentView, data: GameData): Step | undefined {
  if (view.inventory.length >= INVENTORY_SLOTS) return undefined;
  const item = nearest(
    view,
    view.entities.filter(
      (entity) =>
        entity.kind === "item" &&
        isLoot(data, entity.type) &&
        chebyshev(entity.position, view.self.position) <= LOOT_RANGE,
    ),
  );
  return item && { event: "player:action", data: { action: "pickup", targetId: item.id } };
}

/** Raw food it carries, cooked all at once: on a fire or range in view, else at the nearest range. */
function cookAllStep(view: AgentView, world: WorldKnowledge): Step | undefined {
  const { data, map } = world;
  if (!view.inventory.some((entry) => data.cooking.has(entry.itemId))) return undefined;
  const cook = cookStep(view, world);
  if (cook) return cook;
  const ranges = data.areas
    .flatMap((area) => area.stations)
    .filter((station) => cooksFood(data.stations.get(station.stationId)));
  return walkTowards(view, ranges, map);
}

function isFood(data: GameData, itemId: string): boolean {
  return (data.items.get(itemId)?.heals ?? 0) > 0;
}

/**
 * Food for a fighter that has none: the bank's (walking to a booth), else its raw food cooked, else
 * food bought with its coins, else fish caught with its net, a few before it cooks them on the nearest
 * range or fire. Undefined when it can do none of these.
 */
function provisionStep(
  view: AgentView,
  world: WorldKnowledge,
  current: string | undefined,
): Step | undefined {
  const { data, map } = world;
  if (hasFood(view, data)) return undefined;
  const banked = withdrawStep(view, world);
  if (banked) return banked;
  if (view.bank?.some((row) => isFood(data, row.itemId)))
    return walkTowards(
      view,
      data.areas.flatMap((area) => area.banks),
      map,
    );
  const raw = view.inventory.filter((entry) => data.cooking.has(entry.itemId)).length;
  const full = view.inventory.length >= INVENTORY_SLOTS;
  const fishing = view.entities.some(
    (entity) => entity.id === current && entity.kind === "resource" && !entity.depleted,
  );
  // Fishing, it fishes on until it has a few to cook at once.
  if (fishing && raw < FISH_TO_CATCH && !full) return undefined;
  return (
    cookAllStep(view, world) ??
    buyFoodStep(view, world) ??
    (full ? undefined : gatherStep("fishing", view, world, current))
  );
}
