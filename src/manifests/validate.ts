// The whole validation: shapes first (a file that fails its schema cannot be cross-checked), then
// references and layout, then the indexed GameData.
import type { GameData } from "../game/types.js";
import { buildCatalog, collector } from "./catalog.js";
import { buildGameData } from "./game-data.js";
import { checkLayout } from "./layout.js";
import { parseManifests } from "./parse.js";
import type { Problem } from "./problems.js";
import { checkReferences } from "./references.js";
import { checkWorldReferences } from "./world.js";

export type Validation = { ok: true; data: GameData } | { ok: false; problems: Problem[] };

/** Validates manifest texts (file name, e.g. `items/food.json`, to content). */
export function validateManifests(texts: ReadonlyMap<string, string>): Validation {
  const parsed = parseManifests(texts);
  if (!parsed.ok) return parsed;
  const { problems, report } = collector();
  const catalog = buildCatalog(parsed.manifests, report);
  checkReferences(parsed.manifests, catalog, report);
  checkWorldReferences(parsed.manifests, catalog, report);
  checkLayout(parsed.manifests, catalog, report);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, data: buildGameData(parsed.manifests) };
}
