// The interface's six state providers: each turns what the agent was sent (AgentKnowledge) into one part of
// its state, for the planners, GET /api/agents/:agentId/state and the dashboard alike.

import { areaContaining } from "../../game/map.js";
import { chebyshev } from "../../game/tile.js";
import {
  COINS_ITEM_ID,
  type EquipSlot,
  INVENTORY_SLOTS,
  type SkillName,
  type Tile,
} from "../../game/types.js";
import type { WorldEntity } from "../../game/world-types.js";
import { availableActions } from "../actions/index.js";
import { type AgentContext, type AgentKnowledge, IN_COMBAT_MS } from "../knowledge.js";

export interface GameState {
  health: number;
  maxHealth: number;
  /** Run energy, 0..100. */
  stamina: number;
  position: Tile;
  inCombat: boolean;
  areaId: string | null;
}

export interface InventoryState {
  items: { slot: number; itemId: string; quantity: number }[];
  coins: number;
  freeSlots: number;
}

export interface NearbyEntity {
  id: string;
  kind: WorldEntity["kind"];
  type: string;
  name: string;
  position: Tile;
  distance: number;
}

export type SkillsState = Partial<Record<SkillName, { level: number; xp: number }>>;
export type EquipmentState = Partial<Record<EquipSlot, { itemId: string; quantity: number }>>;

export function inCombat(know: AgentKnowledge): boolean {
  return know.lastCombatAt !== undefined && know.now - know.lastCombatAt < IN_COMBAT_MS;
}

/** Where the agent stands: its own entity's tile when in view, else its sync's. */
export function positionOf(know: AgentKnowledge): Tile | undefined {
  return know.self?.position ?? know.sync?.position;
}

export function gameStateProvider({ know, world }: AgentContext): GameState | null {
  const sync = know.sync;
  const position = positionOf(know);
  if (!sync || !position) return null;
  return {
    health: know.self?.health ?? sync.health,
    maxHealth: sync.maxHealth,
    stamina: know.runEnergy ?? sync.runEnergy,
    position: { x: position.x, z: position.z },
    inCombat: inCombat(know),
    areaId: areaContaining(world.data.areas, position)?.id ?? null,
  };
}

export function inventoryProvider({ know }: AgentContext): InventoryState {
  const items = (know.sync?.inventory ?? []).map(({ slot, itemId, quantity }) => ({
    slot,
    itemId,
    quantity,
  }));
  const coins =
    know.sync?.coins ??
    items.filter((entry) => entry.itemId === COINS_ITEM_ID).reduce((sum, entry) => sum + entry.quantity, 0);
  return { items, coins, freeSlots: know.sync ? INVENTORY_SLOTS - items.length : 0 };
}

/** The entities in view (its view distance is its range), nearest first. */
export function nearbyEntitiesProvider({ know }: AgentContext): NearbyEntity[] {
  const from = positionOf(know);
  if (!from) return [];
  return know.entities
    .map((entity) => ({
      id: entity.id,
      kind: entity.kind,
      type: entity.type,
      name: entity.name,
      position: { x: entity.position.x, z: entity.position.z },
      distance: chebyshev(entity.position, from),
    }))
    .sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id));
}

export function skillsProvider({ know }: AgentContext): SkillsState {
  const skills: SkillsState = {};
  for (const [skill, state] of Object.entries(know.sync?.skills ?? {}))
    skills[skill as SkillName] = { level: state.level, xp: state.xp };
  return skills;
}

export function equipmentProvider({ know }: AgentContext): EquipmentState {
  const equipment: EquipmentState = {};
  for (const [slot, itemId] of Object.entries(know.sync?.equipment ?? {}))
    if (itemId) equipment[slot as EquipSlot] = { itemId, quantity: 1 };
  return equipment;
}

/** The actions whose preconditions hold now, with their defaults (see the actions' `available`). */
export function availableActionsProvider(context: AgentContext): string[] {
  return availableActions(context);
}

/** Every provider's part, as the state endpoint and the model's context carry them. */
export interface ProvidedState {
  gameState: GameState | null;
  inventory: InventoryState;
  nearbyEntities: NearbyEntity[];
  skills: SkillsState;
  equipment: EquipmentState;
  availableActions: string[];
}

export function provideState(context: AgentContext): ProvidedState {
  return {
    gameState: gameStateProvider(context),
    inventory: inventoryProvider(context),
    nearbyEntities: nearbyEntitiesProvider(context),
    skills: skillsProvider(context),
    equipment: equipmentProvider(context),
    availableActions: availableActionsProvider(context),
  };
}
