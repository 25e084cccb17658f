// A character's current state: the running world's when the player is online, the database's otherwise.
import type { Tile } from "../game/types.js";
import type { PlayerSync } from "../game/world-types.js";
import { playerSyncOf } from "../game/world-view.js";
import type { LiveWorld } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";

type Characters = Pick<Runtime, "characters">;

export async function lookupPlayer(
  runtime: Characters,
  liveWorld: LiveWorld,
  characterId: string,
): Promise<PlayerSync | undefined> {
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
  const live = await liveWorld.player(characterId);
  if (live) return { position: live.position, online: true };
  const stored = await runtime.characters.summary(characterId);
  return stored && { position: stored.position, online: false };
}
