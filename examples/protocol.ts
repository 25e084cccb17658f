// The shapes of what a client of this server reads, written out for clients: copy this file with the
// examples. docs/protocol.md describes every event; test/example-types.test.ts checks at compile time
// that the server's own types still fit these.

/** A tile of the world's grid. */
export interface Tile {
  x: number;
  z: number;
}

/** Something in view: a player, a monster or other NPC, an item on the ground, a tree, rock or spot. */
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

/** `world:update`: the entities that appeared in view, changed, or left it, after a tick. */
export interface WorldUpdate {
  tick: number;
  added: WorldEntity[];
  updated: WorldEntity[];
  removed: string[];
}

/** `player:sync`: the player's own state, first on every connection and after each change of it. */
export interface PlayerSync {
  id: string;
  name: string;
  position: Tile;
  health: number;
  maxHealth: number;
  /** By skill name: `attack`, `woodcutting`, ... */
  skills: Record<string, { level: number; xp: number }>;
  /** Occupied slots only (0..27). */
  inventory: { slot: number; itemId: string; quantity: number }[];
  /** By equipment slot: `weapon`, `head`, ... */
  equipment: Partial<Record<string, string>>;
  coins: number;
  bank: { itemId: string; quantity: number }[];
  prayer: { points: number; active: string[] };
  /** A whole percent, 0..100. */
  runEnergy: number;
}

/** `chat:message`: a line said in view (or by the server). */
export interface ChatMessage {
  fromPlayerId: string;
  fromPlayerName: string;
  message: string;
  timestamp: number;
}

/** `error`: a refused message, with a stable code and the event it answers. */
export interface ErrorEvent {
  code: string;
  message: string;
  event?: string;
}

/** `POST /api/v1/auth/anonymous`'s answer. */
export interface AnonymousSignIn {
  token: string;
  playerId: string;
  expiresAt: string;
}
