// References between the world files: areas, biomes, vegetation, buildings and music.
import type { Catalog, Report } from "./catalog.js";
import type { Manifests } from "./files.js";

function checkAreaReferences(m: Manifests, catalog: Catalog, report: Report): void {
  const file = "world-areas.json";
  m[file].forEach((area, i) => {
    const unknown = (path: PropertyKey[], kind: string, ref: string) =>
      report(file, [i, ...path], `unknown ${kind} "${ref}"`);
    if (!catalog.biomes.has(area.biome)) unknown(["biome"], "biome", area.biome);
    if (area.musicId !== undefined && !catalog.music.has(area.musicId))
      unknown(["musicId"], "music track", area.musicId);
    area.npcSpawns.forEach((spawn, n) => {
      if (!catalog.npcs.has(spawn.npcId)) unknown(["npcSpawns", n, "npcId"], "NPC", spawn.npcId);
    });
    area.resources.forEach((placed, n) => {
      if (!catalog.resources.has(placed.resourceId))
        unknown(["resources", n, "resourceId"], "resource", placed.resourceId);
    });
    area.stations.forEach((placed, n) => {
      if (!catalog.stations.has(placed.stationId))
        unknown(["stations", n, "stationId"], "station", placed.stationId);
    });
    area.buildings.forEach((placed, n) => {
      if (!catalog.buildings.has(placed.buildingId))
        unknown(["buildings", n, "buildingId"], "building", placed.buildingId);
    });
    const hasBanker = area.npcSpawns.some((spawn) => catalog.npcs.get(spawn.npcId)?.role === "banker");
    if (hasBanker && area.banks.length === 0)
      report(file, [i, "banks"], "a banker stands here but there is no bank");
  });
}

export function checkWorldReferences(m: Manifests, catalog: Catalog, report: Report): void {
  checkAreaReferences(m, catalog, report);
  m["music.json"].forEach((track, i) => {
    track.areas.forEach((areaId, a) => {
      if (!catalog.areas.has(areaId)) report("music.json", [i, "areas", a], `unknown area "${areaId}"`);
    });
  });
  m["biomes.json"].forEach((biome, i) => {
    biome.vegetation.forEach((vegetationId, v) => {
      if (!catalog.vegetation.has(vegetationId))
        report("biomes.json", [i, "vegetation", v], `unknown vegetation "${vegetationId}"`);
    });
  });
  m["vegetation.json"].forEach((vegetation, i) => {
    vegetation.biomes.forEach((biomeId, b) => {
      if (!catalog.biomes.has(biomeId))
        report("vegetation.json", [i, "biomes", b], `unknown biome "${biomeId}"`);
    });
  });
  m["buildings.json"].forEach((building, i) => {
    building.doors.forEach((door, d) => {
      if (door.x >= building.width || door.z >= building.depth) {
        report("buildings.json", [i, "doors", d], "door lies outside the footprint");
      }
    });
  });
}
