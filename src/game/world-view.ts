// Projections for the room: entities as the protocol draws them, what one player can see, and the
// player:sync object.

import { maxHealth } from "./character.js";
import type { CharacterState } from "./character-state.js";
import { DEFAULT_STYLE } from "./combat.js";
import type { GroundItem } from "./ground-items.js";
import { countItem } from "./inventory.js";
import { prayerPoints } from "./prayer.js";
import { runEnergy, runEnergyPercent } from "./run-energy.js";
import { COINS_ITEM_ID, type PrayerDef, SKILLS } from "./types.js";
import type { NpcEntity, PlayerEntity, WorldObject } from "./world-entities.js";
import type { WorldState } from "./world-state.js";
import type { PlayerSync, WorldEntity } from "./world-types.js";

export function describePlayer(state: WorldState, player: PlayerEntity): WorldEntity {
  return {
    id: player.id,
    kind: "player",
    type: "player",
    name: player.character.name,
    position: { ...player.position },
    health: player.character.health,
    maxHealth: state.maxHealth(player),
  };
}

export function describeNpc(npc: NpcEntity): WorldEntity {
  const entity: WorldEntity = {
    id: npc.id,
    kind: "npc",
    type: npc.def.id,
    name: npc.def.name,
    position: { ...npc.position },
  };
  if (npc.health !== undefined) {
    entity.health = npc.health;
    entity.maxHealth = npc.maxHealth;
  }
  return entity;
}

export function describeObject(object: WorldObject): WorldEntity {
  const entity: WorldEntity = {
    id: object.id,
    kind: "resource",
    type: object.def.id,
    name: object.def.name,
    position: { ...object.position },
  };
  if (object.kind === "resource") entity.depleted = object.respawnTick !== undefined;
  return entity;
}

export function describeGroundItem(state: WorldState, item: GroundItem): WorldEntity {
  return {
    id: item.id,
    kind: "item",
    type: item.itemId,
    name: state.data.items.get(item.itemId)?.name ?? item.itemId,
    position: { ...item.position },
    quantity: item.quantity,
  };
}

/** Any live entity by id: players by character id, then `npc:`, `item:`, `res:`, `station:` and `fire:` ids. */
export function describeEntity(state: WorldState, id: string): WorldEntity | undefined {
  const player = state.players.get(id);
  if (player) return describePlayer(state, player);
  const npc = state.npcs.get(id);
  if (npc) return npc.alive ? describeNpc(npc) : undefined;
  const object = state.objects.get(id);
  if (object) return describeObject(object);
  const item = state.groundItems.get(id);
  return item ? describeGroundItem(state, item) : undefined;
}

export function allEntities(state: WorldState): WorldEntity[] {
  const entities: WorldEntity[] = [];
  for (const player of state.players.values()) entities.push(describePlayer(state, player));
  for (const npc of state.npcs.values()) if (npc.alive) entities.push(describeNpc(npc));
  for (const object of state.objects.values()) entities.push(describeObject(object));
  for (const item of state.groundItems.values()) entities.push(describeGroundItem(state, item));
  return entities;
}

/** The protocol's player:sync object of a character (online or stored): copies, safe to send later. */
export function playerSyncOf(
  character: CharacterState,
  activePrayers: readonly PrayerDef[] = [],
): PlayerSync {
  return {
    id: character.id,
    name: character.name,
    position: { ...character.position },
    health: character.health,
    maxHealth: maxHealth(character),
    skills: copySkills(character.skills),
    inventory: character.inventory.map((entry) => ({ ...entry })),
    equipment: { ...character.equipment },
    coins: countItem(character.inventory, COINS_ITEM_ID),
    bank: character.bank.map((entry) => ({ ...entry })),
    prayer: { points: prayerPoints(character), active: activePrayers.map((prayer) => prayer.id) },
    runEnergy: runEnergyPercent(runEnergy(character)),
    combatStyle: character.combatStyle ?? DEFAULT_STYLE,
  };
}

/** A copy of the skills by hand: structuredClone costs several times more, once per player:sync. */
function copySkills(skills: CharacterState["skills"]): PlayerSync["skills"] {
  const copy = {} as PlayerSync["skills"];
  for (const skill of SKILLS) {
    const { level, xp } = skills[skill];
    copy[skill] = { level, xp };
  }
  return copy;
}
