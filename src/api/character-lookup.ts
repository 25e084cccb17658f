// A character's current state: the running world's when the player is online, the database's otherwise.
import type { Tile } from "../game/types.js";
import type { PlayerSync } from "../game/world-types.js";
import { playerSyncOf } from "../game/world-view.js";
import type { Runtime } from "../runtime.js";
import type { LiveWorld } from "./live-world.js";

type Characters = Pick<Runtime, "characters">;

/** PostgreSQL text cannot hold a NUL byte (it refuses the query, a 500), so no stored id has one. */
const couldExist = (characterId: string) => !characterId.includes("\0");

export async function lookupPlayer(
  runtime: Characters,
  liveWorld: LiveWorld,
  characterId: string,
): Promise<PlayerSync | undefined> {
  if (!couldExist(characterId)) return undefined;
  const live = await liveWorld.player(characterId);
  if (live) return live;
  const stored = await runtime.characters.load(characterId);
  return stored && playerSyncOf(stored);
}

export async function lookupPosition(
  runtime: Characters,
  liveWorld: LiveWorld,
  characterId: string,
): Promise<{ position: Tile; online: boolean } | undefined> {
  if (!couldExist(characterId)) return undefined;
  const live = await liveWorld.player(characterId);
  if (live) return { position: live.position, online: true };
  const stored = await runtime.characters.summary(characterId);
  return stored && { position: stored.position, online: false };
}
