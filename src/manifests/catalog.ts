// Indexes every manifest by id once, reporting duplicate ids on the way, so the reference checks
// can ask "does this id exist?" cheaply.
import type {
  AreaDef,
  BiomeDef,
  BuildingDef,
  ItemDef,
  MusicTrack,
  NpcDef,
  ResourceDef,
  StationDef,
  StoreDef,
  ToolDef,
  VegetationDef,
} from "../game/types.js";
import type { Manifests } from "./files.js";
import { allItems } from "./items.js";
import { type Problem, problem } from "./problems.js";

export type Report = (file: string, path: readonly PropertyKey[], reason: string) => void;

export function collector(): { problems: Problem[]; report: Report } {
  const problems: Problem[] = [];
  return { problems, report: (file, path, reason) => problems.push(problem(file, path, reason)) };
}

export interface Catalog {
  items: Map<string, ItemDef>;
  npcs: Map<string, NpcDef>;
  stores: Map<string, StoreDef>;
  resources: Map<string, ResourceDef>;
  tools: Map<string, ToolDef>;
  stations: Map<string, StationDef>;
  biomes: Map<string, BiomeDef>;
  vegetation: Map<string, VegetationDef>;
  buildings: Map<string, BuildingDef>;
  music: Map<string, MusicTrack>;
  areas: Map<string, AreaDef>;
}

function indexBy<K extends string, T extends Record<K, string>>(
  file: string,
  list: readonly T[],
  key: K,
  report: Report,
): Map<string, T> {
  const index = new Map<string, T>();
  list.forEach((entry, i) => {
    if (index.has(entry[key])) report(file, [i, key], `duplicate id "${entry[key]}"`);
    else index.set(entry[key], entry);
  });
  return index;
}

export function buildCatalog(m: Manifests, report: Report): Catalog {
  const items = new Map<string, ItemDef>();
  for (const { item, file, index } of allItems(m)) {
    if (items.has(item.id)) report(file, [index, "id"], `duplicate item id "${item.id}"`);
    else items.set(item.id, item);
  }
  return {
    items,
    npcs: indexBy("npcs.json", m["npcs.json"], "id", report),
    stores: indexBy("stores.json", m["stores.json"], "id", report),
    resources: indexBy("resources.json", m["resources.json"], "id", report),
    tools: indexBy("tools.json", m["tools.json"], "itemId", report),
    stations: indexBy("stations.json", m["stations.json"], "id", report),
    biomes: indexBy("biomes.json", m["biomes.json"], "id", report),
    vegetation: indexBy("vegetation.json", m["vegetation.json"], "id", report),
    buildings: indexBy("buildings.json", m["buildings.json"], "id", report),
    music: indexBy("music.json", m["music.json"], "id", report),
    areas: indexBy("world-areas.json", m["world-areas.json"], "id", report),
  };
}
