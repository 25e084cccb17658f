// What the actions' checks read from the agent's knowledge: its position and levels, what it carries,
// what it sees, and where on the map it can walk.
import { canReachBank } from "../../game/bank.js";
import type { InventoryEntry } from "../../game/character-state.js";
import { bestTool } from "../../game/gathering.js";
import { chebyshev, NEIGHBOURS } from "../../game/tile.js";
import type { GatheringSkill, SkillName, Tile, ToolKind } from "../../game/types.js";
import { SKILLS } from "../../game/types.js";
import type { WorldEntity } from "../../game/world-types.js";
import type { WorldKnowledge } from "../brain.js";
import type { AgentContext, AgentKnowledge } from "../knowledge.js";
import { positionOf } from "../providers/index.js";

/** Where the agent stands (the actions run only while it is in the world). */
export function here(know: AgentKnowledge): Tile {
  return positionOf(know) ?? { x: 0, z: 0 };
}

export function levels(know: AgentKnowledge): Record<SkillName, number> {
  const result = {} as Record<SkillName, number>;
  for (const skill of SKILLS) result[skill] = know.sync?.skills[skill]?.level ?? 1;
  return result;
}

export function inventory(know: AgentKnowledge): readonly InventoryEntry[] {
  return know.sync?.inventory ?? [];
}

export function carried(know: AgentKnowledge, itemId: string): InventoryEntry | undefined {
  return inventory(know).find((entry) => entry.itemId === itemId);
}

export function itemName({ world }: AgentContext, itemId: string): string {
  return world.data.items.get(itemId)?.name ?? itemId;
}

/** An entity in view by id. */
export function seen(know: AgentKnowledge, id: string): WorldEntity | undefined {
  return know.entities.find((entity) => entity.id === id);
}

export function nearestOf<T extends { position: Tile }>(from: Tile, candidates: readonly T[]): T | undefined {
  let best: T | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = chebyshev(candidate.position, from);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** The best tool of a kind the agent carries or wears and may use. */
export function toolFor(context: AgentContext, skill: GatheringSkill, kind: ToolKind) {
  const { know, world } = context;
  const ids = [...inventory(know).map((entry) => entry.itemId), ...Object.values(know.sync?.equipment ?? {})];
  return bestTool(
    ids.filter((id): id is string => !!id),
    skill,
    kind,
    levels(know),
    world.data.tools,
  );
}

/** Whether one more of the item fits in its inventory (a free slot, or its stack). */
export function hasRoomFor(context: AgentContext, itemId: string): boolean {
  const items = inventory(context.know);
  if (items.length < 28) return true;
  return !!context.world.data.items.get(itemId)?.stackable && items.some((entry) => entry.itemId === itemId);
}

/** The bank booths of the map, and the bankers in view. */
export function bankPlaces({ know, world }: AgentContext): Tile[] {
  const booths = world.data.areas.flatMap((area) => area.banks);
  const bankers = know.entities
    .filter((entity) => entity.kind === "npc" && world.data.npcs.get(entity.type)?.role === "banker")
    .map((entity) => entity.position);
  return [...booths, ...bankers];
}

export function besideBank(context: AgentContext): boolean {
  return canReachBank(here(context.know), bankPlaces(context));
}

/** The walkable tiles around a tile, in the agent's region. */
export function walkableBeside(world: WorldKnowledge, place: Tile, region: number): Tile[] {
  return NEIGHBOURS.map(([dx, dz]) => ({ x: place.x + dx, z: place.z + dz })).filter(
    (tile) => world.map.regionAt(tile.x, tile.z) === region,
  );
}

export function regionOf(world: WorldKnowledge, tile: Tile): number {
  return world.map.regionAt(tile.x, tile.z);
}

export function describeTile(tile: Tile): string {
  return `(${tile.x}, ${tile.z})`;
}
