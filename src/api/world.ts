// GET /api/v1/world and /api/v1/world/areas.
import { type RequestHandler, Router } from "express";
import type { AreaDef, GameData } from "../game/types.js";
import type { LiveWorld, WorldStatus } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";

export function worldRouter(
  runtime: Pick<Runtime, "gameData">,
  liveWorld: LiveWorld,
  authenticated: RequestHandler,
): Router {
  const router = Router();

  router.get("/v1/world", authenticated, async (_req, res) => {
    const status = (await liveWorld.status()) ?? offlineStatus(runtime.gameData);
    res.json({
      tick: status.tick,
      time: new Date().toISOString(),
      playersOnline: status.playersOnline,
      areas: runtime.gameData.areas.length,
      entities: status.entities,
    });
  });

  // Public, for the landing page: how many are playing, and nothing else.
  router.get("/v1/world/online", async (_req, res) => {
    const status = await liveWorld.status();
    res.json({ playersOnline: status?.playersOnline ?? 0 });
  });

  router.get("/v1/world/areas", authenticated, (_req, res) => {
    res.json({ areas: runtime.gameData.areas.map(areaSummary) });
  });

  return router;
}

/** Without a running world: nobody online, nothing dropped, every NPC and resource as the manifests place them. */
function offlineStatus(data: Pick<GameData, "areas">): WorldStatus {
  const count = (pick: (area: AreaDef) => readonly unknown[]) =>
    data.areas.reduce((sum, area) => sum + pick(area).length, 0);
  return {
    tick: 0,
    playersOnline: 0,
    entities: {
      players: 0,
      npcs: count((area) => area.npcSpawns),
      items: 0,
      resources: count((area) => area.resources),
    },
  };
}

function areaSummary({ id, name, bounds, biome, safeZone, levelRange }: AreaDef) {
  return levelRange
    ? { id, name, bounds, biome, safeZone, levelRange }
    : { id, name, bounds, biome, safeZone };
}
