// GET /api/v1/world, /api/v1/worlds and /api/v1/world/areas.
import { type RequestHandler, Router } from "express";
import type { AreaDef, GameData } from "../game/types.js";
import type { LiveWorld, WorldStatus } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";
import { callerOf } from "./authenticate.js";

export function worldRouter(
  runtime: Pick<Runtime, "gameData" | "config" | "characters">,
  liveWorld: LiveWorld,
  authenticated: RequestHandler,
): Router {
  const router = Router();

  // The caller's world: the one its character plays in now, else world 1.
  router.get("/v1/world", authenticated, async (_req, res) => {
    const world = await callersWorld(res.locals.caller ? callerOf(res).account.id : undefined);
    const status = (await liveWorld.status(world)) ?? offlineStatus(runtime.gameData);
    res.json({
      world,
      tick: status.tick,
      time: new Date().toISOString(),
      playersOnline: status.playersOnline,
      areas: runtime.gameData.areas.length,
      entities: status.entities,
    });
  });

  // How many are playing in all (the landing page, for people not signed in, reads GET /health).
  router.get("/v1/world/online", authenticated, async (_req, res) => {
    let playersOnline = 0;
    for (let world = 1; world <= runtime.config.WORLDS; world++)
      playersOnline += (await liveWorld.status(world))?.playersOnline ?? 0;
    res.json({ playersOnline });
  });

  // For a world picker: each numbered world, how many play there and whether it is full.
  router.get("/v1/worlds", authenticated, async (_req, res) => {
    res.json({ worlds: await liveWorld.worlds(runtime.config.WORLDS, runtime.config.WORLD_CAPACITY) });
  });

  router.get("/v1/world/areas", authenticated, (_req, res) => {
    res.json({ areas: runtime.gameData.areas.map(areaSummary) });
  });

  return router;

  async function callersWorld(accountId: string | undefined): Promise<number> {
    if (!accountId || runtime.config.WORLDS === 1) return 1;
    for (const character of await runtime.characters.ofAccount(accountId)) {
      const world = await liveWorld.worldOf(character.id);
      if (world !== undefined) return world;
    }
    return 1;
  }
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
