// The skill-unlock map of GET /api/data/skill-unlocks. Most unlocks follow from the other manifests
// (a tool's level, a recipe's level...), so they are derived here and cannot drift from the rules;
// skill-unlocks.json adds only what no other file says (areas, milestones).
import {
  type ItemDef,
  SKILLS,
  type SkillName,
  type SkillUnlock,
  type SkillUnlockMap,
} from "../game/types.js";
import type { Manifests } from "./files.js";
import { allItems } from "./items.js";

type Unlock = SkillUnlock & { skill: SkillName };

const WEAR_VERB: Partial<Record<ItemDef["type"], string>> = {
  weapon: "Wield",
  armor: "Wear",
  ammunition: "Fire",
};
const GATHER_VERB = { woodcutting: "Chop", fishing: "Fish at", mining: "Mine" } as const;

function derivedUnlocks(m: Manifests): Unlock[] {
  const items = new Map(allItems(m).map(({ item }) => [item.id, item]));
  const nameOf = (itemId: string) => items.get(itemId)?.name ?? itemId;
  const resources = new Map(m["resources.json"].map((resource) => [resource.id, resource]));
  const unlocks: Unlock[] = [];
  for (const item of items.values()) {
    for (const [skill, level] of Object.entries(item.requirements ?? {}) as [SkillName, number][]) {
      unlocks.push({
        skill,
        level,
        description: `${WEAR_VERB[item.type] ?? "Use"} ${item.name}`,
        type: "item",
      });
    }
  }
  for (const tool of m["tools.json"]) {
    unlocks.push({
      skill: tool.skill,
      level: tool.levelRequired,
      description: `Use ${nameOf(tool.itemId)}`,
      type: "item",
    });
  }
  for (const def of [
    ...m["gathering/woodcutting.json"],
    ...m["gathering/fishing.json"],
    ...m["gathering/mining.json"],
  ]) {
    const name = resources.get(def.resourceId)?.name ?? def.resourceId;
    unlocks.push({
      skill: def.skill,
      level: def.levelRequired,
      description: `${GATHER_VERB[def.skill]} ${name.toLowerCase()}`,
      type: "activity",
    });
  }
  for (const recipe of m["recipes/cooking.json"]) {
    unlocks.push({
      skill: "cooking",
      level: recipe.levelRequired,
      description: `Cook ${nameOf(recipe.cookedItemId).toLowerCase()}`,
      type: "item",
    });
  }
  for (const recipe of m["recipes/firemaking.json"]) {
    unlocks.push({
      skill: "firemaking",
      level: recipe.levelRequired,
      description: `Light ${nameOf(recipe.logItemId).toLowerCase()}`,
      type: "activity",
    });
  }
  for (const [verb, recipes] of [
    ["Smelt", m["recipes/smelting.json"]],
    ["Smith", m["recipes/smithing.json"]],
  ] as const) {
    for (const recipe of recipes) {
      unlocks.push({
        skill: "smithing",
        level: recipe.levelRequired,
        description: `${verb} ${nameOf(recipe.output.itemId).toLowerCase()}`,
        type: "item",
      });
    }
  }
  for (const prayer of m["prayers.json"]) {
    unlocks.push({
      skill: "prayer",
      level: prayer.level,
      description: `${prayer.name} prayer`,
      type: "ability",
    });
  }
  return unlocks;
}

/** Every skill as a key, each list sorted by level (ties keep manifest order), without repeats. */
export function buildSkillUnlocks(m: Manifests): SkillUnlockMap {
  const map = Object.fromEntries(SKILLS.map((skill) => [skill, [] as SkillUnlock[]])) as SkillUnlockMap;
  const handWritten = Object.entries(m["skill-unlocks.json"]).flatMap(([skill, list]) =>
    (list ?? []).map((unlock) => ({ ...unlock, skill: skill as SkillName })),
  );
  const seen = new Set<string>();
  for (const { skill, ...unlock } of [...derivedUnlocks(m), ...handWritten]) {
    const id = `${skill}|${unlock.level}|${unlock.description}`;
    if (seen.has(id)) continue;
    seen.add(id);
    map[skill].push(unlock);
  }
  for (const skill of SKILLS) map[skill].sort((a, b) => a.level - b.level);
  return map;
}
