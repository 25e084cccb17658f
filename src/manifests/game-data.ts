// Indexes validated manifests into the GameData the rules use.
import type { GameData } from "../game/types.js";
import type { Manifests } from "./files.js";
import { allItems } from "./items.js";
import { buildSkillUnlocks } from "./skill-unlocks.js";

const byKey = <T, K extends keyof T>(list: readonly T[], key: K) =>
  new Map(list.map((entry) => [entry[key], entry]));

export function buildGameData(m: Manifests): GameData {
  const startingArea = m["world-areas.json"][0];
  if (!startingArea) throw new Error("world-areas.json has no area to start in");
  return {
    items: new Map(allItems(m).map(({ item }) => [item.id, item])),
    npcs: byKey(m["npcs.json"], "id"),
    areas: m["world-areas.json"],
    biomes: byKey(m["biomes.json"], "id"),
    resources: byKey(m["resources.json"], "id"),
    gathering: byKey(
      [...m["gathering/woodcutting.json"], ...m["gathering/fishing.json"], ...m["gathering/mining.json"]],
      "resourceId",
    ),
    tools: byKey(m["tools.json"], "itemId"),
    stations: byKey(m["stations.json"], "id"),
    stores: byKey(m["stores.json"], "id"),
    ammunition: byKey(m["ammunition.json"], "itemId"),
    prayers: byKey(m["prayers.json"], "id"),
    cooking: byKey(m["recipes/cooking.json"], "rawItemId"),
    firemaking: byKey(m["recipes/firemaking.json"], "logItemId"),
    smelting: m["recipes/smelting.json"],
    smithing: m["recipes/smithing.json"],
    buildings: byKey(m["buildings.json"], "id"),
    music: m["music.json"],
    vegetation: m["vegetation.json"],
    skillUnlocks: buildSkillUnlocks(m),
    startingAreaId: startingArea.id,
    starterKit: m["starter-kit.json"],
  };
}
