// GET /api/characters/:id/skills and /position. Any signed-in account may read any character: it is what
// other players see of it in the game. Unknown ids are 404.
import { type RequestHandler, Router } from "express";
import { combatLevel, skillLevels, totalLevel } from "../game/combat-level.js";
import { areaContaining } from "../game/map.js";
import type { LiveWorld } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";
import { ServiceError } from "../protocol/errors.js";
import { lookupPlayer, lookupPosition } from "./character-lookup.js";

export function charactersRouter(
  runtime: Pick<Runtime, "characters" | "gameData">,
  liveWorld: LiveWorld,
  authenticated: RequestHandler,
): Router {
  const router = Router();

  router.get("/characters/:id/skills", authenticated, async (req, res) => {
    const characterId = req.params.id as string;
    const player = await lookupPlayer(runtime, liveWorld, characterId);
    if (!player) throw unknownCharacter(characterId);
    const levels = skillLevels(player.skills);
    res.json({
      characterId,
      skills: player.skills,
      totalLevel: totalLevel(levels),
      combatLevel: combatLevel(levels),
    });
  });

  router.get("/characters/:id/position", authenticated, async (req, res) => {
    const characterId = req.params.id as string;
    const found = await lookupPosition(runtime, liveWorld, characterId);
    if (!found) throw unknownCharacter(characterId);
    const areaId = areaContaining(runtime.gameData.areas, found.position)?.id ?? null;
    res.json({ characterId, position: found.position, areaId, online: found.online });
  });

  return router;
}

function unknownCharacter(id: string): ServiceError {
  return new ServiceError("not_found", `no character ${id}`);
}
