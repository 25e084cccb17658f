import assert from "node:assert/strict";
import { sellPrice } from "../../src/game/stores.js";
import { type GameData, SKILLS } from "../../src/game/types.js";
import { inViewFrom } from "../../src/game/view-index.js";
import { MANIFEST_FILES } from "../../src/manifests/files.js";
import { formatReport } from "../../src/manifests/problems.js";
import { validateManifests } from "../../src/manifests/validate.js";
import { shippedTexts } from "./helpers.js";

describe("shipped manifests", () => {
  let data: GameData;
  let fileCount: number;

  before(async () => {
    const texts = await shippedTexts();
    fileCount = texts.size;
    const validation = validateManifests(texts);
    if (!validation.ok) assert.fail(formatReport(validation.problems));
    data = validation.data;
  });

  it("ship more than 25 files, at least 60 items, 12 NPCs and 5 areas", () => {
    assert.ok(fileCount > 25, `${fileCount} files`);
    assert.equal(fileCount, MANIFEST_FILES.length - 1, "every known file except the alternative items.json");
    assert.ok(data.items.size >= 60, `${data.items.size} items`);
    assert.ok(data.npcs.size >= 12, `${data.npcs.size} NPCs`);
    assert.ok(data.areas.length >= 5, `${data.areas.length} areas`);
    for (const role of ["monster", "banker", "shopkeeper"]) {
      assert.ok(
        [...data.npcs.values()].some((npc) => npc.role === role),
        role,
      );
    }
  });

  it("make coins a stackable misc item worth 1", () => {
    const coins = data.items.get("coins");
    assert.equal(coins?.type, "misc");
    assert.equal(coins.value, 1);
    assert.equal(coins.stackable, true);
  });

  it("give new characters a tool for every gathering skill, a tinderbox, coins and food", () => {
    const kit = data.starterKit.map((entry) => entry.itemId);
    const toolSkills = new Set(kit.flatMap((itemId) => data.tools.get(itemId)?.skill ?? []));
    assert.deepEqual([...toolSkills].sort(), ["fishing", "mining", "woodcutting"]);
    assert.ok(kit.includes("tinderbox") && kit.includes("coins"));
    assert.ok(kit.some((itemId) => data.items.get(itemId)?.type === "food"));
  });

  it("start new characters in a safe area with a tree, fishing spot, rock, bank, range and chicken in view", () => {
    const area = data.areas.find((candidate) => candidate.id === data.startingAreaId);
    assert.ok(area?.safeZone);
    const near = (tile: { x: number; z: number }) => inViewFrom(area.spawnPoint, tile);
    const nearbyResources = area.resources.filter(near).map((placed) => placed.resourceId);
    for (const id of ["tree", "fishing_spot_net", "copper_rock"]) assert.ok(nearbyResources.includes(id), id);
    assert.ok(area.banks.some(near));
    assert.ok(area.stations.some((placed) => near(placed) && placed.stationId === "cooking_range"));
    assert.ok(area.npcSpawns.some((spawn) => near(spawn) && spawn.npcId === "chicken"));
  });

  it("chain the gathering skills into cooking and firemaking", () => {
    assert.equal(data.gathering.get("tree")?.itemId, "logs");
    assert.equal(data.gathering.get("fishing_spot_net")?.itemId, "raw_shrimps");
    assert.deepEqual(data.cooking.get("raw_shrimps"), {
      rawItemId: "raw_shrimps",
      cookedItemId: "shrimps",
      burntItemId: "burnt_shrimps",
      levelRequired: 1,
      xp: 30,
      stopBurnLevel: 34,
    });
    for (const log of ["logs", "oak_logs", "willow_logs"]) assert.ok(data.firemaking.has(log), log);
  });

  it("order each kind of tool: a higher tier never needs a lower level, and no two share a tier", () => {
    const kinds = new Set([...data.tools.values()].map((tool) => tool.kind));
    for (const kind of kinds) {
      const tools = [...data.tools.values()]
        .filter((tool) => tool.kind === kind)
        .sort((a, b) => a.tier - b.tier);
      for (const [lower, higher] of tools.slice(0, -1).map((tool, i) => [tool, tools[i + 1]!] as const)) {
        assert.ok(higher.tier > lower.tier, `${lower.itemId} and ${higher.itemId} share tier ${lower.tier}`);
        assert.ok(
          higher.levelRequired >= lower.levelRequired,
          `${higher.itemId} (tier ${higher.tier}) needs level ${higher.levelRequired}, below ${lower.itemId}'s`,
        );
      }
    }
  });

  it("put each monster in an area whose level range holds its combat level", () => {
    for (const area of data.areas) {
      if (!area.levelRange) continue;
      const { min, max } = area.levelRange;
      for (const spawn of area.npcSpawns) {
        const npc = data.npcs.get(spawn.npcId)!;
        if (npc.role !== "monster") continue;
        assert.ok(
          npc.combatLevel >= min && npc.combatLevel <= max,
          `${npc.id} (level ${npc.combatLevel}) in ${area.id} (${min}..${max})`,
        );
      }
    }
  });

  it("let every raw food that is gathered or dropped be cooked, and every log gathered be lit", () => {
    const obtained = new Set([
      ...[...data.gathering.values()].map((def) => def.itemId),
      ...[...data.npcs.values()].flatMap((npc) => npc.drops.map((drop) => drop.itemId)),
    ]);
    for (const itemId of obtained) {
      if (itemId.startsWith("raw_")) assert.ok(data.cooking.has(itemId), `${itemId} has no cooking recipe`);
    }
    for (const def of data.gathering.values()) {
      if (def.skill === "woodcutting")
        assert.ok(data.firemaking.has(def.itemId), `${def.itemId} cannot be lit`);
    }
  });

  it("unlock only what a player can come by: every item with a level to use it is gathered, dropped, sold or made", () => {
    const obtainable = new Set([
      ...data.starterKit.map((entry) => entry.itemId),
      ...[...data.gathering.values()].map((def) => def.itemId),
      ...[...data.npcs.values()].flatMap((npc) => npc.drops.map((drop) => drop.itemId)),
      ...[...data.stores.values()].flatMap((store) => store.items.map((offer) => offer.itemId)),
      ...[...data.cooking.values()].map((recipe) => recipe.cookedItemId),
      ...[...data.smelting, ...data.smithing].map((recipe) => recipe.output.itemId),
    ]);
    const unobtainable = [...data.items.values()]
      .filter((item) => item.requirements !== undefined && !obtainable.has(item.id))
      .map((item) => item.id);
    assert.deepEqual(unobtainable, [], "listed as unlocks, yet nowhere to be had");
  });

  it("let no store's goods be bought for less than a store pays, nor made into more than they cost", () => {
    const cheapest = new Map<string, number>();
    for (const store of data.stores.values())
      for (const offer of store.items)
        cheapest.set(
          offer.itemId,
          Math.min(cheapest.get(offer.itemId) ?? Number.POSITIVE_INFINITY, offer.price),
        );
    const paidFor = (itemId: string, quantity = 1) => {
      const item = data.items.get(itemId)!;
      return item.tradeable === false ? 0 : sellPrice(item) * quantity;
    };
    const loops: string[] = [];
    for (const [itemId, price] of cheapest)
      if (paidFor(itemId) > price) loops.push(`${itemId}: bought for ${price}, sold for ${paidFor(itemId)}`);
    // Made from what the stores sell alone: a skill's XP is the only gain it may bring.
    for (const recipe of [...data.smelting, ...data.smithing]) {
      const cost = recipe.inputs.reduce(
        (sum, input) => sum + (cheapest.get(input.itemId) ?? Number.POSITIVE_INFINITY) * input.quantity,
        0,
      );
      const gain = paidFor(recipe.output.itemId, recipe.output.quantity);
      if (gain > cost) loops.push(`${recipe.id}: its inputs cost ${cost}, its output sells for ${gain}`);
    }
    for (const recipe of data.cooking.values()) {
      const cost = cheapest.get(recipe.rawItemId) ?? Number.POSITIVE_INFINITY;
      if (paidFor(recipe.cookedItemId) > cost)
        loops.push(`${recipe.rawItemId}: costs ${cost}, cooked sells for ${paidFor(recipe.cookedItemId)}`);
    }
    assert.deepEqual(loops, []);
  });

  it("list every skill's unlocks sorted by level", () => {
    assert.deepEqual(Object.keys(data.skillUnlocks).sort(), [...SKILLS].sort());
    for (const skill of SKILLS) {
      const levels = data.skillUnlocks[skill].map((unlock) => unlock.level);
      assert.deepEqual(
        levels,
        [...levels].sort((a, b) => a - b),
        skill,
      );
    }
    assert.ok(data.skillUnlocks.woodcutting.some((u) => u.level === 15 && u.description === "Chop oak tree"));
    assert.ok(data.skillUnlocks.prayer.some((u) => u.type === "ability"));
  });
});
