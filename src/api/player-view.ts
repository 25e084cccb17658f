// How the REST API shows a stored character: the same shapes the WorldRoom sends for an online one.
import type { AreaDef, Tile } from "../game/types.js";

export function areaAt(tile: Tile, areas: readonly AreaDef[]): AreaDef | undefined {
  return areas.find(
    ({ bounds }) =>
      tile.x >= bounds.minX && tile.x <= bounds.maxX && tile.z >= bounds.minZ && tile.z <= bounds.maxZ,
  );
}
