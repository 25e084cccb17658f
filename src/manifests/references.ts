// Cross-file rules for everything except the world layout: every referenced id exists and is of
// the kind the reference needs, and each entity has the fields its kind implies.
import { npcCombatant } from "../game/combat.js";
import { INVENTORY_SLOTS, type ItemType } from "../game/types.js";
import type { Catalog, Report } from "./catalog.js";
import type { Manifests } from "./files.js";
import { allItems, ITEM_FILE_TYPES } from "./items.js";

type RefCheck = (
  file: string,
  path: readonly PropertyKey[],
  itemId: string,
  types?: readonly ItemType[],
) => void;

function itemRefChecker(catalog: Catalog, report: Report): RefCheck {
  return (file, path, itemId, types) => {
    const item = catalog.items.get(itemId);
    if (!item) report(file, path, `unknown item "${itemId}"`);
    else if (types && !types.includes(item.type)) {
      report(file, path, `item "${itemId}" is a ${item.type}, expected ${types.join(" or ")}`);
    }
  };
}

function checkItems(m: Manifests, report: Report): void {
  for (const { item, file, index } of allItems(m)) {
    const at = (field: string, reason: string) => report(file, [index, field], reason);
    const allowed = ITEM_FILE_TYPES[file];
    if (allowed !== "any" && !allowed.includes(item.type))
      at("type", `a ${item.type} does not belong in ${file}`);
    if (item.type === "food" && item.heals === undefined) at("heals", "food must say how much it heals");
    if (item.type !== "food" && item.heals !== undefined) at("heals", "only food heals");
    if (item.type === "weapon") {
      if (item.equipSlot !== "weapon") at("equipSlot", 'weapons are wielded in the "weapon" slot');
      if (item.attackSpeed === undefined) at("attackSpeed", "weapons need an attack speed");
      if (item.combatType === undefined) at("combatType", "weapons need a combat type");
    }
    if (item.type === "armor" && item.equipSlot === undefined) at("equipSlot", "armour needs an equip slot");
    if (item.type === "ammunition" && item.equipSlot !== "ammo")
      at("equipSlot", 'ammunition goes in the "ammo" slot');
    // What is worn: weapons, armour (not in the weapon's or the arrows' slot) and ammunition, nothing else.
    const worn = item.type === "weapon" || item.type === "armor" || item.type === "ammunition";
    if (!worn && item.equipSlot !== undefined) at("equipSlot", `a ${item.type} is not worn`);
    if (item.type === "armor" && (item.equipSlot === "weapon" || item.equipSlot === "ammo"))
      at("equipSlot", `armour is not worn in the "${item.equipSlot}" slot`);
    if (item.equipSlot === undefined && item.bonuses !== undefined)
      at("bonuses", "only what is worn gives bonuses");
    if (item.type !== "weapon" && item.attackSpeed !== undefined)
      at("attackSpeed", "only weapons have an attack speed");
    if (item.type !== "weapon" && item.combatType !== undefined)
      at("combatType", "only weapons have a combat type");
  }
}

function checkCoins(catalog: Catalog, report: Report): void {
  const coins = catalog.items.get("coins");
  if (!coins) report("items/misc.json", [], 'the currency item "coins" is missing');
  else if (!coins.stackable || coins.value !== 1 || coins.type !== "misc") {
    report("items/misc.json", [], '"coins" must be a stackable misc item of value 1');
  }
}

function checkNpcs(m: Manifests, catalog: Catalog, report: Report, checkItem: RefCheck): void {
  m["npcs.json"].forEach((npc, i) => {
    const file = "npcs.json";
    if (npc.role === "monster") {
      if (!npc.combat) report(file, [i, "combat"], "monsters need combat stats");
      else {
        // A monster that can never land a hit, or whose hardest is 0, is no fight at all.
        const { attackRoll, maxHit } = npcCombatant(npc);
        if (attackRoll <= 0) report(file, [i, "combat", "attackBonus"], "this monster could never hit");
        if (maxHit < 1) report(file, [i, "combat", "strengthBonus"], "this monster's hardest hit would be 0");
      }
      if (npc.drops.length === 0) report(file, [i, "drops"], "monsters need a drop table");
    } else if (npc.combat) {
      report(file, [i, "combat"], `a ${npc.role} cannot be fought`);
    }
    if (npc.aggressive && npc.aggroRange === 0)
      report(file, [i, "aggroRange"], "aggressive NPCs need an aggro range");
    npc.drops.forEach((entry, d) => {
      checkItem(file, [i, "drops", d, "itemId"], entry.itemId);
    });
    if (npc.role === "shopkeeper" && npc.storeId === undefined)
      report(file, [i, "storeId"], "shopkeepers need a store");
    if (npc.storeId === undefined) return;
    const store = catalog.stores.get(npc.storeId);
    if (npc.role !== "shopkeeper") report(file, [i, "storeId"], "only shopkeepers run stores");
    else if (!store) report(file, [i, "storeId"], `unknown store "${npc.storeId}"`);
    else if (store.npcId !== npc.id)
      report(file, [i, "storeId"], `store "${store.id}" is run by "${store.npcId}"`);
  });
}

function checkStores(m: Manifests, catalog: Catalog, report: Report, checkItem: RefCheck): void {
  m["stores.json"].forEach((store, i) => {
    const keeper = catalog.npcs.get(store.npcId);
    if (!keeper) report("stores.json", [i, "npcId"], `unknown NPC "${store.npcId}"`);
    else if (keeper.role !== "shopkeeper")
      report("stores.json", [i, "npcId"], `"${store.npcId}" is not a shopkeeper`);
    store.items.forEach((entry, s) => {
      checkItem("stores.json", [i, "items", s, "itemId"], entry.itemId);
    });
  });
}

const GATHERING_FILES = [
  "gathering/woodcutting.json",
  "gathering/fishing.json",
  "gathering/mining.json",
] as const;
const skillOfFile = (file: (typeof GATHERING_FILES)[number]) =>
  file.slice("gathering/".length, -".json".length);

function checkGathering(m: Manifests, catalog: Catalog, report: Report, checkItem: RefCheck): void {
  const toolKinds = new Set(m["tools.json"].map((tool) => tool.kind));
  const gathered = new Set<string>();
  for (const file of GATHERING_FILES) {
    m[file].forEach((def, i) => {
      if (def.skill !== skillOfFile(file))
        report(file, [i, "skill"], `${file} holds ${skillOfFile(file)} only`);
      const resource = catalog.resources.get(def.resourceId);
      if (!resource) report(file, [i, "resourceId"], `unknown resource "${def.resourceId}"`);
      else if (resource.skill !== def.skill)
        report(file, [i, "skill"], `"${resource.id}" is a ${resource.skill} resource`);
      if (gathered.has(def.resourceId))
        report(file, [i, "resourceId"], `"${def.resourceId}" is already gatherable`);
      gathered.add(def.resourceId);
      checkItem(file, [i, "itemId"], def.itemId);
      if (!toolKinds.has(def.toolKind))
        report(file, [i, "toolKind"], `no tool of kind "${def.toolKind}" in tools.json`);
    });
  }
  m["resources.json"].forEach((resource, i) => {
    if (!gathered.has(resource.id))
      report("resources.json", [i, "id"], `nothing says what "${resource.id}" yields`);
  });
}

/** A tool gathers for the skill its kind is used in (an axe filed under mining would chop no tree). */
function checkTools(m: Manifests, report: Report, checkItem: RefCheck): void {
  const skillsOfKind = new Map<string, Set<string>>();
  for (const file of GATHERING_FILES)
    for (const def of m[file]) {
      const skills = skillsOfKind.get(def.toolKind) ?? new Set<string>();
      skills.add(def.skill);
      skillsOfKind.set(def.toolKind, skills);
    }
  m["tools.json"].forEach((tool, i) => {
    checkItem("tools.json", [i, "itemId"], tool.itemId, ["tool"]);
    const skills = skillsOfKind.get(tool.kind);
    if (skills && !skills.has(tool.skill))
      report("tools.json", [i, "skill"], `${tool.kind} tools are for ${[...skills].join(" or ")}`);
  });
}

/**
 * Lists the game looks up by a key the catalog does not index: a repeated key would be kept once (the
 * last) without a word, and the skill-unlock map, which lists every entry, would disagree with the game.
 */
function checkRepeatedKeys(m: Manifests, report: Report): void {
  const keyed = [
    ["ammunition.json", "itemId"],
    ["prayers.json", "id"],
    ["recipes/cooking.json", "rawItemId"],
    ["recipes/firemaking.json", "logItemId"],
    ["recipes/smelting.json", "id"],
    ["recipes/smithing.json", "id"],
  ] as const;
  for (const [file, key] of keyed) {
    const seen = new Set<unknown>();
    (m[file] as readonly Record<string, unknown>[]).forEach((entry, i) => {
      if (seen.has(entry[key])) report(file, [i, key], `"${String(entry[key])}" is listed already`);
      seen.add(entry[key]);
    });
  }
}

function checkAmmunition(m: Manifests, catalog: Catalog, report: Report, checkItem: RefCheck): void {
  m["ammunition.json"].forEach((ammo, i) => {
    checkItem("ammunition.json", [i, "itemId"], ammo.itemId, ["ammunition"]);
    ammo.weapons.forEach((weaponId, w) => {
      checkItem("ammunition.json", [i, "weapons", w], weaponId, ["weapon"]);
      if (catalog.items.get(weaponId)?.combatType === "melee") {
        report("ammunition.json", [i, "weapons", w], `"${weaponId}" is a melee weapon`);
      }
    });
  });
}

function checkRecipes(m: Manifests, catalog: Catalog, report: Report, checkItem: RefCheck): void {
  m["recipes/cooking.json"].forEach((recipe, i) => {
    const file = "recipes/cooking.json";
    checkItem(file, [i, "rawItemId"], recipe.rawItemId);
    checkItem(file, [i, "cookedItemId"], recipe.cookedItemId, ["food"]);
    checkItem(file, [i, "burntItemId"], recipe.burntItemId);
    if (recipe.stopBurnLevel < recipe.levelRequired)
      report(file, [i, "stopBurnLevel"], "below the level required");
  });
  m["recipes/firemaking.json"].forEach((recipe, i) => {
    checkItem("recipes/firemaking.json", [i, "logItemId"], recipe.logItemId);
  });
  const stationTypes = new Set([...catalog.stations.values()].map((station) => station.type));
  for (const file of ["recipes/smelting.json", "recipes/smithing.json"] as const) {
    m[file].forEach((recipe, i) => {
      recipe.inputs.forEach((input, n) => {
        checkItem(file, [i, "inputs", n, "itemId"], input.itemId);
      });
      checkItem(file, [i, "output", "itemId"], recipe.output.itemId);
      if (!stationTypes.has(recipe.station))
        report(file, [i, "station"], `no ${recipe.station} in stations.json`);
    });
  }
}

function checkStarterKit(m: Manifests, catalog: Catalog, report: Report, checkItem: RefCheck): void {
  let slots = 0;
  m["starter-kit.json"].forEach((entry, i) => {
    checkItem("starter-kit.json", [i, "itemId"], entry.itemId);
    slots += catalog.items.get(entry.itemId)?.stackable ? 1 : entry.quantity;
  });
  if (slots > INVENTORY_SLOTS)
    report("starter-kit.json", [], `needs ${slots} inventory slots, there are ${INVENTORY_SLOTS}`);
}

export function checkReferences(m: Manifests, catalog: Catalog, report: Report): void {
  const checkItem = itemRefChecker(catalog, report);
  checkItems(m, report);
  checkCoins(catalog, report);
  checkNpcs(m, catalog, report, checkItem);
  checkStores(m, catalog, report, checkItem);
  checkGathering(m, catalog, report, checkItem);
  checkTools(m, report, checkItem);
  checkRepeatedKeys(m, report);
  checkAmmunition(m, catalog, report, checkItem);
  checkRecipes(m, catalog, report, checkItem);
  checkStarterKit(m, catalog, report, checkItem);
}
