// What a sensible player does around its fights, as plain rules over the agent's view: wield and wear
// the best it owns, fight what it can beat, keep food by cooking its catch (on a fire it lights, if
// need be), withdrawing some from the bank or buying some.
import { canReachBank } from "../../game/bank.js";
import {
  type Combatant,
  defenceRoll,
  MELEE_STYLES,
  npcEffectiveLevel,
  RANGED_STYLES,
} from "../../game/combat.js";
import { cooksFood } from "../../game/cooking.js";
import { unmetRequirement } from "../../game/equipment.js";
import { chebyshev } from "../../game/tile.js";
import { COINS_ITEM_ID, type GameData, type ItemDef } from "../../game/types.js";
import type { AgentView, Step, WorldKnowledge } from "../brain.js";
import { agentCombatant, damagePerTick, levelsOf, ownCombatLevel } from "./fight-math.js";
import { nearest, walkTowards } from "./places.js";

/** How much food it takes from the bank at once. */
export const FOOD_TO_WITHDRAW = 10;

/** The monsters it fights: those that leave it alone until attacked, up to its own level less 3 (5 at least). */
export function isWinnable(data: GameData, npcId: string, view: AgentView, floor: number): boolean {
  const def = data.npcs.get(npcId);
  if (def?.role !== "monster" || def.aggressive) return false;
  return def.combatLevel <= Math.max(floor, ownCombatLevel(view) - 3);
}

/** What a weapon is judged against: a level-1 monster's defence, the foe a new character meets. */
const REFERENCE_FOE: Combatant = {
  combatType: "melee",
  attackRoll: 0,
  defenceRoll: defenceRoll(npcEffectiveLevel(1), 0),
  maxHit: 0,
  attackSpeed: 4,
};

/** Damage per tick wielding `weaponId` (with the best fitting arrows it has, for a bow), in its best style. */
function weaponDamage(view: AgentView, data: GameData, weaponId: string): number {
  const weapon = data.items.get(weaponId);
  const ranged = weapon?.combatType === "ranged";
  const arrows = [...view.inventory.map((entry) => entry.itemId), view.equipment?.ammo]
    .map((itemId) => (itemId === undefined ? undefined : data.ammunition.get(itemId)))
    .filter((ammo) => ammo?.weapons.includes(weaponId))
    .sort((a, b) => b!.rangedStrength - a!.rangedStrength);
  if (ranged && arrows.length === 0) return 0;
  const equipment = { ...view.equipment, weapon: weaponId, ...(ranged && { ammo: arrows[0]!.itemId }) };
  const styles = ranged ? RANGED_STYLES : MELEE_STYLES;
  const levels = levelsOf(view);
  return Math.max(
    ...styles.map((style) =>
      damagePerTick(agentCombatant(view, data, style, levels, equipment), REFERENCE_FOE),
    ),
  );
}

function meleeScore(item: ItemDef | undefined): number {
  const bonuses = item?.bonuses ?? {};
  return (bonuses.attack ?? 0) + (bonuses.strength ?? 0) + (bonuses.defence ?? 0);
}

/**
 * Wields the weapon it hits hardest with (a bow only with arrows for it), wears the best armour it may
 * (by its bonuses) and the arrows that fit its bow: one piece a decision.
 */
export function gearStep(view: AgentView, data: GameData): Step | undefined {
  const levels = levelsOf(view);
  const worn = view.equipment ?? {};
  const wielded = worn.weapon;
  const wieldedDamage = wielded === undefined ? unarmedDamage(view, data) : weaponDamage(view, data, wielded);
  const use = (slot: number): Step => ({ event: "inventory:use", data: { inventorySlot: slot } });
  for (const entry of view.inventory) {
    const item = data.items.get(entry.itemId);
    if (!item?.equipSlot || unmetRequirement(item, levels)) continue;
    if (item.equipSlot === "weapon") {
      if (weaponDamage(view, data, item.id) > wieldedDamage + 1e-9) return use(entry.slot);
    } else if (item.equipSlot === "ammo") {
      const ammo = data.ammunition.get(item.id);
      const current = worn.ammo === undefined ? undefined : data.ammunition.get(worn.ammo);
      const fits = wielded !== undefined && ammo?.weapons.includes(wielded);
      const currentFits = wielded !== undefined && current?.weapons.includes(wielded);
      if (fits && (!currentFits || ammo!.rangedStrength > current!.rangedStrength)) return use(entry.slot);
    } else {
      const wornId = worn[item.equipSlot];
      if (meleeScore(item) > meleeScore(wornId === undefined ? undefined : data.items.get(wornId)))
        return use(entry.slot);
    }
  }
  return undefined;
}

function unarmedDamage(view: AgentView, data: GameData): number {
  const { weapon: _none, ...bare } = view.equipment ?? {};
  return Math.max(
    ...MELEE_STYLES.map((style) =>
      damagePerTick(agentCombatant(view, data, style, levelsOf(view), bare), REFERENCE_FOE),
    ),
  );
}

export function hasFood(view: AgentView, data: GameData): boolean {
  return view.inventory.some((entry) => (data.items.get(entry.itemId)?.heals ?? 0) > 0);
}

/**
 * Out of food: cook raw food on a fire or range in view, or light a fire for it (outside towns), or take
 * food from the bank when a booth is in reach. Undefined when none of these can be done here.
 */
export function foodStep(view: AgentView, world: WorldKnowledge): Step | undefined {
  if (hasFood(view, world.data)) return undefined;
  return cookStep(view, world) ?? withdrawStep(view, world);
}

/** Cooks raw food it carries on a fire or range in view, or lights a fire for it outside towns. */
export function cookStep(view: AgentView, { data, map }: WorldKnowledge): Step | undefined {
  const raw = view.inventory.find((entry) => data.cooking.has(entry.itemId));
  if (!raw) return undefined;
  const station = view.entities.find(
    (entity) =>
      cooksFood(data.stations.get(entity.type)) && chebyshev(entity.position, view.self.position) <= 10,
  );
  if (station) return { event: "player:action", data: { action: "cook", inventorySlot: raw.slot } };
  const logs = view.inventory.find((entry) => data.firemaking.has(entry.itemId));
  const tinderbox = view.inventory.some((entry) => entry.itemId === "tinderbox");
  const { x, z } = view.self.position;
  if (logs && tinderbox && !map.areaAt(x, z)?.safeZone)
    return { event: "player:action", data: { action: "light_fire", inventorySlot: logs.slot } };
  return undefined;
}

/** Takes food from the bank when a booth is in reach and the bank holds some. */
export function withdrawStep(view: AgentView, { data }: WorldKnowledge): Step | undefined {
  const banked = view.bank?.find((row) => (data.items.get(row.itemId)?.heals ?? 0) > 0);
  const booths = data.areas.flatMap((area) => area.banks);
  if (banked && canReachBank(view.self.position, booths))
    return {
      event: "bank:withdraw",
      data: { itemId: banked.itemId, quantity: Math.min(FOOD_TO_WITHDRAW, banked.quantity) },
    };
  return undefined;
}

/**
 * Food bought with the coins it carries, at the nearest store that sells food it can pay for: beside the
 * shopkeeper, as many of the most health for its coins as they pay (the store sells what fits); else
 * a walk there. Undefined when no store sells food it can afford.
 */
export function buyFoodStep(view: AgentView, { data, map }: WorldKnowledge): Step | undefined {
  const coins = view.inventory.find((entry) => entry.itemId === COINS_ITEM_ID)?.quantity ?? 0;
  const from = view.self.position;
  const counters = [...data.stores.values()].flatMap((store) => {
    const offers = store.items.filter(
      (offer) => (data.items.get(offer.itemId)?.heals ?? 0) > 0 && offer.price <= coins,
    );
    if (offers.length === 0) return [];
    const best = offers.reduce((a, b) => (health(data, b, coins) > health(data, a, coins) ? b : a));
    return data.areas.flatMap((area) =>
      area.npcSpawns
        .filter((spawn) => spawn.npcId === store.npcId)
        .map((spawn) => ({ npcId: store.npcId, offer: best, at: { x: spawn.x, z: spawn.z } })),
    );
  });
  const counter = counters.sort((a, b) => chebyshev(a.at, from) - chebyshev(b.at, from))[0];
  if (!counter) return undefined;
  const keeper = nearest(
    view,
    view.entities.filter((entity) => entity.kind === "npc" && entity.type === counter.npcId),
  );
  if (keeper && chebyshev(keeper.position, from) <= 1)
    return {
      event: "store:buy",
      data: {
        targetId: keeper.id,
        itemId: counter.offer.itemId,
        quantity: Math.floor(coins / counter.offer.price),
      },
    };
  return walkTowards(view, [keeper?.position ?? counter.at], map);
}

/** The health `coins` buy of an offer. */
function health(data: GameData, offer: { itemId: string; price: number }, coins: number): number {
  return (data.items.get(offer.itemId)?.heals ?? 0) * Math.floor(coins / offer.price);
}
