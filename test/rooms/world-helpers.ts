// What the world room tests do with a joined SDK player: read its replicated view, wait on it,
// read its latest player:sync, become an admin, and read what the database holds of it.
import { eq } from "drizzle-orm";
import { groundItems } from "../../src/db/schema.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import type { SdkPlayer } from "../support/players.js";
import type { TestServer } from "../support/server.js";

/** An entity as the SDK client's replicated state holds it. */
export interface SeenEntity {
  id: string;
  kind: string;
  type: string;
  name: string;
  x: number;
  z: number;
  health?: number;
  maxHealth?: number;
  quantity?: number;
  depleted?: boolean;
}

export function seenEntities(player: SdkPlayer): SeenEntity[] {
  const entities = (player.room.state as { entities?: Map<string, SeenEntity> }).entities;
  return entities ? [...entities.values()] : [];
}

export function seenEntity(player: SdkPlayer, id: string): SeenEntity | undefined {
  return seenEntities(player).find((entity) => entity.id === id);
}

/** The entity of `type` the player sees at a tile, or the nearest one of that type to it. */
export function seenAt(player: SdkPlayer, type: string, x: number, z: number): SeenEntity {
  const candidates = seenEntities(player).filter((entity) => entity.type === type);
  const distance = (entity: SeenEntity) => Math.max(Math.abs(entity.x - x), Math.abs(entity.z - z));
  const nearest = candidates.sort((a, b) => distance(a) - distance(b))[0];
  if (!nearest) throw new Error(`${player.id} sees no ${type}`);
  return nearest;
}

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The player's state as the server last sent it. */
export function latestSync(player: SdkPlayer): PlayerSync {
  return player.inbox.last("player:sync") ?? player.sync;
}

export function countOf(holder: Pick<PlayerSync, "inventory">, itemId: string): number {
  return holder.inventory
    .filter((entry) => entry.itemId === itemId)
    .reduce((sum, entry) => sum + entry.quantity, 0);
}

export function slotOf(sync: PlayerSync, itemId: string): number {
  const entry = sync.inventory.find((candidate) => candidate.itemId === itemId);
  if (!entry) throw new Error(`no ${itemId} in the inventory`);
  return entry.slot;
}

/** Waits for a player:sync (already received or next) that passes `test`. */
export function syncWhere(player: SdkPlayer, test: (sync: PlayerSync) => boolean, timeoutMs = 10000) {
  return player.inbox.next<PlayerSync>("player:sync", test, timeoutMs, true);
}

/** Enables the admin commands (/tp, /give, /heal) for the player's session. */
export async function becomeAdmin(player: SdkPlayer, code: string): Promise<void> {
  player.room.send("player:chat", { message: `/admin ${code}` });
  await player.inbox.next("chat:message", (message) => message.fromPlayerId === "server");
}

/** Admin /give: resolves with the player:sync that carries the items. */
export function give(player: SdkPlayer, itemId: string, quantity: number): Promise<PlayerSync> {
  const before = countOf(latestSync(player), itemId);
  const given = player.inbox.next<PlayerSync>(
    "player:sync",
    (sync) => countOf(sync, itemId) >= before + quantity,
  );
  player.room.send("player:chat", { message: `/give ${itemId} ${quantity}` });
  return given;
}

/** Admin /tp: resolves once the player's own entity stands on the tile. */
export async function teleport(player: SdkPlayer, x: number, z: number): Promise<void> {
  player.room.send("player:chat", { message: `/tp ${x} ${z}` });
  await waitFor(() => {
    const self = seenEntity(player, player.id);
    return self?.x === x && self.z === z;
  }, `${player.id} teleported to ${x},${z}`);
}

/** How many of an item the character's stored inventory holds. */
export async function storedCount(server: TestServer, characterId: string, itemId: string): Promise<number> {
  return countOf((await server.runtime.characters.load(characterId))!, itemId);
}

/** The stored ground items only `ownerId` sees yet, as [item id, quantity]. */
export async function storedGroundOf(server: TestServer, ownerId: string): Promise<[string, number][]> {
  const rows = await server.runtime.database.db
    .select()
    .from(groundItems)
    .where(eq(groundItems.ownerId, ownerId));
  return rows.map((item) => [item.itemId, item.quantity]);
}
