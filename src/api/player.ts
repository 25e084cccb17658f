// GET and POST /api/v1/player: the caller's own character.
import { randomUUID } from "node:crypto";
import { type RequestHandler, Router } from "express";
import { NameTakenError } from "../db/characters.js";
import { newCharacter } from "../game/character.js";
import { playerSyncOf } from "../game/world-view.js";
import type { LiveWorld } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";
import { ServiceError } from "../protocol/errors.js";
import { callerOf } from "./authenticate.js";
import { lookupPlayer } from "./character-lookup.js";
import { characterNameBody, parseOr400 } from "./validate.js";

export function playerRouter(
  runtime: Pick<Runtime, "characters" | "gameData">,
  liveWorld: LiveWorld,
  authenticated: RequestHandler,
): Router {
  const router = Router();

  router.get("/v1/player", authenticated, async (_req, res) => {
    const [character] = await runtime.characters.ofAccount(callerOf(res).account.id);
    const player = character && (await lookupPlayer(runtime, liveWorld, character.id));
    if (!player)
      throw new ServiceError(
        "not_found",
        "this account has no character yet: create one with POST /api/v1/player",
      );
    res.json(player);
  });

  /** Creates the account's character (201) or renames it (200). */
  router.post("/v1/player", authenticated, async (req, res) => {
    const { name } = parseOr400(characterNameBody, req.body);
    const accountId = callerOf(res).account.id;
    const [existing] = await runtime.characters.ofAccount(accountId);
    try {
      const character = newCharacter(randomUUID(), name, runtime.gameData);
      // Created only if the account still has none, even when two requests race.
      const id = existing?.id ?? (await runtime.characters.createFirst(accountId, character));
      if (id === character.id) {
        res.status(201).json(playerSyncOf(character));
        return;
      }
      await runtime.characters.rename(id, name);
      await liveWorld.renamed(id, name);
      const player = await lookupPlayer(runtime, liveWorld, id);
      // The world shows the new name from its next tick; the answer shows it now.
      res.status(200).json({ ...player, name });
    } catch (error) {
      if (error instanceof NameTakenError) throw new ServiceError("conflict", error.message);
      throw error;
    }
  });

  return router;
}
