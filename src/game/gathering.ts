// Woodcutting, fishing and mining: tool choice and the odds of each attempt.
import type { Random } from "./random.js";
import { chanceOutOf256 } from "./skill-chance.js";
import type { GatheringDef, GatheringSkill, SkillName, ToolDef, ToolKind } from "./types.js";

/**
 * A resource's low/high are for a tier-1 tool; each tier above adds half of them again
 * (tier 2 = 1.5x, tier 3 = 2x, ...), the progression of RuneScape's published axe tables
 * (bronze, iron, steel, mithril, adamant, rune).
 */
function tierFactor(toolTier: number): number {
  return 1 + 0.5 * (Math.max(1, toolTier) - 1);
}

/** The chance in 0..1 that one attempt yields an item. */
export function gatherChance(def: GatheringDef, level: number, toolTier: number): number {
  const factor = tierFactor(toolTier);
  const outOf256 = chanceOutOf256(def.low * factor, def.high * factor, level);
  // REFERENCE's curve: 256 out of 256 (and beyond, for generous curves) is a certain success.
  return Math.min(256, outOf256) / 256;
}

/** The item as a tool of the right kind, if it is one. */
function toolOfKind(
  tools: ReadonlyMap<string, ToolDef>,
  itemId: string,
  skill: GatheringSkill,
  toolKind: ToolKind,
): ToolDef | undefined {
  const tool = tools.get(itemId);
  return tool !== undefined && tool.kind === toolKind && tool.skill === skill ? tool : undefined;
}

/** The highest-tier tool of the right kind among the carried and worn items that the player may use. */
export function bestTool(
  inventoryAndEquippedItemIds: Iterable<string>,
  skill: GatheringSkill,
  toolKind: ToolKind,
  levels: Readonly<Record<SkillName, number>>,
  tools: ReadonlyMap<string, ToolDef>,
): ToolDef | undefined {
  // Asked at each gathering tick: no list is made of the tools held.
  let best: ToolDef | undefined;
  for (const itemId of inventoryAndEquippedItemIds) {
    const tool = toolOfKind(tools, itemId, skill, toolKind);
    if (!tool || levels[tool.skill] < tool.levelRequired) continue;
    if (best === undefined || tool.tier > best.tier) best = tool;
  }
  return best;
}

/** Of the tools of a kind held, the one needing the lowest level: why none can be used, when none can. */
export function easiestTool(
  inventoryAndEquippedItemIds: Iterable<string>,
  skill: GatheringSkill,
  toolKind: ToolKind,
  tools: ReadonlyMap<string, ToolDef>,
): ToolDef | undefined {
  let easiest: ToolDef | undefined;
  for (const itemId of inventoryAndEquippedItemIds) {
    const tool = toolOfKind(tools, itemId, skill, toolKind);
    if (tool && (easiest === undefined || tool.levelRequired < easiest.levelRequired)) easiest = tool;
  }
  return easiest;
}

/** One attempt; only a successful one may deplete the resource. Draws one number, two on success. */
export function attemptGather(
  def: GatheringDef,
  level: number,
  toolTier: number,
  random: Random,
): { success: boolean; depleted: boolean } {
  const success = random() < gatherChance(def, level, toolTier);
  return { success, depleted: success && random() < def.depleteChance };
}
