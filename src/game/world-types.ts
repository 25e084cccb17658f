// The World's public vocabulary: what the room submits, and what each tick reports back.
import type { CombatStyle } from "./combat.js";
import type { GameError } from "./errors.js";
import type { StoreStock } from "./stores.js";
import type { EquipSlot, SkillName, Tile } from "./types.js";

export const ACTIONS = [
  "attack",
  "chop",
  "fish",
  "mine",
  "pickup",
  "light_fire",
  "cook",
  "drop",
  "stop",
  "flee",
  "combat_style",
] as const;
export type ActionName = (typeof ACTIONS)[number];

/** A player's request, as the protocol's client events carry it; admin intents are the room's to allow. */
export type Intent =
  | { type: "move"; x: number; z: number; run?: boolean }
  | {
      type: "action";
      action: ActionName;
      targetId?: string;
      inventorySlot?: number;
      style?: CombatStyle;
      itemId?: string;
    }
  | {
      type: "use";
      inventorySlot: number;
      targetSlot?: number;
      targetId?: string;
      productId?: string;
      itemId?: string;
    }
  | { type: "unequip"; slot: EquipSlot }
  | { type: "bankDeposit"; inventorySlot: number; quantity: number; itemId?: string }
  | { type: "bankWithdraw"; itemId: string; quantity: number }
  | { type: "storeOpen"; targetId: string }
  | { type: "storeBuy"; targetId: string; itemId: string; quantity: number }
  | { type: "storeSell"; targetId: string; inventorySlot: number; quantity: number; itemId?: string }
  | { type: "chat"; message: string }
  | { type: "pray"; prayerId: string; active: boolean }
  | { type: "give"; itemId: string; quantity: number }
  | { type: "teleport"; x: number; z: number }
  | { type: "heal" };

/** The protocol's entity shape. Fires and cooking ranges are `resource`s of type "fire" / the station id. */
export interface WorldEntity {
  id: string;
  kind: "player" | "npc" | "item" | "resource";
  type: string;
  name: string;
  position: Tile;
  health?: number;
  maxHealth?: number;
  quantity?: number;
  depleted?: boolean;
}

/** The protocol's world:update: the entities that appeared in view, changed, or left it. */
export interface WorldUpdate {
  tick: number;
  added: WorldEntity[];
  updated: WorldEntity[];
  removed: string[];
}

/** The protocol's player:sync object. */
export interface PlayerSync {
  id: string;
  name: string;
  position: Tile;
  health: number;
  maxHealth: number;
  skills: Record<SkillName, { level: number; xp: number }>;
  inventory: { slot: number; itemId: string; quantity: number }[];
  equipment: Partial<Record<EquipSlot, string>>;
  coins: number;
  /** Beyond the protocol's fields: the bank's contents, so a client can show what it may withdraw. */
  bank: { itemId: string; quantity: number }[];
  /** Beyond the protocol's fields: prayer points left, and the ids of the prayers switched on. */
  prayer: { points: number; active: string[] };
  /** Beyond the protocol's fields: run energy, a whole percent (0..100), what running spends. */
  runEnergy: number;
  /**
   * Beyond the protocol's fields: the combat style last chosen, kept with the character (one the weapon
   * worn cannot use fights as accurate).
   */
  combatStyle: CombatStyle;
}

export interface CombatHit {
  attackerId: string;
  targetId: string;
  damage: number;
  targetHealth: number;
}

export interface SkillXp {
  skill: SkillName;
  /** Total XP in the skill after the gain. */
  xp: number;
  gained: number;
  level: number;
}

export interface ChatMessage {
  fromPlayerId: string;
  fromPlayerName: string;
  message: string;
  timestamp: number;
}

/** Who receives an event: one player, or every player within view distance of a tile. */
export type Recipient = string | { near: Tile };

export type OutboundEvent =
  | { to: Recipient; event: "combat:hit"; data: CombatHit }
  | { to: Recipient; event: "skill:xp"; data: SkillXp }
  /** `ref`: the submitter's reference of the message that said it, whose reply the sender's copy is. */
  | { to: Recipient; event: "chat:message"; data: ChatMessage; ref?: number }
  /** `refs`: the submitters' references of the intents whose changes it shows (see World.submit). */
  | { to: Recipient; event: "player:sync"; data: PlayerSync; refs?: readonly number[] }
  /** `ref`: the submitter's reference of the intent refused while the tick applied it (see World.submit). */
  | { to: Recipient; event: "error"; data: GameError; ref?: number }
  /** `ref`: the submitter's reference of the store:open it answers. */
  | { to: Recipient; event: "store:stock"; data: StoreStock; ref?: number }
  /** Beyond the protocol's events: the player's run energy, a whole percent, whenever that changes. */
  | { to: Recipient; event: "player:energy"; data: { runEnergy: number } };

/**
 * The tick's phases, in the order they run:
 * input (queued intents, re-checked then applied), npcs (respawn, aggression, chase and leash,
 * wander), players (walk into reach of the action's target, 1 tile walking / 2 running; health
 * regeneration; prayer drain and recharge), combat (swings at attack speed, retaliation, deaths, loot), skills (resource
 * respawn, fires burning out, gathering / firemaking / cooking / metalwork attempts), items (pick-ups,
 * then ground items turning public and despawning, then stores restocking).
 */
export const PHASES = ["input", "npcs", "players", "combat", "skills", "items"] as const;
export type Phase = (typeof PHASES)[number];

export interface TickReport {
  tick: number;
  events: OutboundEvent[];
  /** Players whose persistent state (position, inventory, bank, equipment, skills, health) changed. */
  changedCharacters: string[];
  /** Players whose bank changed: the room commits these before acknowledging. */
  bankChanged: string[];
  /** Players whose inventory or equipment changed, banking aside (bankChanged). */
  itemsChanged: string[];
  /** Entities that appeared or whose drawn fields (position, health, quantity, depleted, visibility) changed. */
  changedEntities: string[];
  /** Players who died this tick; they have already respawned. */
  deaths: string[];
  /** Entities that left the world (a player left, an NPC died, an item was taken or despawned, a fire went out). */
  removedEntities: string[];
  phaseMs: Record<Phase, number>;
}
