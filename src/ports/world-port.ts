// What the rest of the server asks of the running world: the REST API (through src/rooms/live-world.ts),
// the agent endpoints and the trade rooms. They reach the world by name with matchMaker.remoteRoomCall,
// possibly on another process, so they depend on this interface, not on the WorldRoom class; the world
// reaches a trade's room the same way, through TradePort.
import type { AgentReply, AgentRequest } from "../agents/requests.js";
import type { TradeParticipant } from "../db/trades.js";
import type { InventoryEntry } from "../game/character-state.js";
import type { TradeErrorReason } from "../game/trade-reasons.js";
import type { PlayerSync } from "../game/world-types.js";
import type { NOT_DURABLE_YET, WorldStatus } from "./live-world.js";

/** What the world answers a trade's room when asked to commit the swap. */
export type TradeCommitOutcome = { ok: true } | { ok: false; reason: TradeErrorReason };

/** Why the world ends a started trade: a player gone, the shutdown, or a `tradeCancel` sent to the world. */
export type TradeEndReason = "partner_disconnected" | "player_died" | "server_shutdown" | "cancelled";

/**
 * An admin's moderation, for the sessions it concerns: an account's mute, until when (null: lifted), or
 * the removal of an account's sessions (a ban) or of one character's (a kick), with the reason told.
 */
export type ModerationChange =
  | { accountId: string; mutedUntil: number | null }
  | { accountId: string; remove: string; bannedUntil: number }
  | { accountId: string; bannedUntil: null }
  | { characterId: string; remove: string };

/**
 * What an admin's moderation reached in a world: the sessions it applied to, and the characters it
 * concerns that a fight keeps there after their sessions ended (see CombatLogouts), which neither a kick
 * nor a ban takes out before the fight is over.
 */
export interface ModerationReach {
  sessions: number;
  lingering: number;
}

/**
 * A world's answer to letting a character go: refused while it fights, or let go, with the trades (its
 * requests and its started trade) that ended as it left unheard by its closing session: the login that
 * replaced it is told of them. ("released" alone is the answer of the version before, met during a
 * rolling deploy.)
 */
export type Release = "in_combat" | "released" | { tradesEnded: readonly string[] };

/** The world's remote calls, by the name each caller passes to matchMaker.remoteRoomCall. */
export interface WorldPort {
  // --- the REST API (src/rooms/live-world.ts) ---
  /**
   * An online player's state, as its client may be shown it: once durable. Undefined when offline, once
   * its last session is written; NOT_DURABLE_YET when that takes longer than a remote call waits.
   */
  livePlayer(characterId: string): Promise<PlayerSync | undefined | typeof NOT_DURABLE_YET>;
  /** A character was renamed: an online player shows the new name from the next tick. */
  renamePlayer(characterId: string, name: string): void;
  /** World counts for GET /api/v1/world. */
  liveStatus(): WorldStatus;
  /** Whether a session plays the character in this world now (see WorldSessions.isPlaying). */
  plays(characterId: string): boolean;
  /** Whether a session of the identity (as `characterId` when named) holds a seat here (see WorldSessions.holdsSeat). */
  holdsSeat(subject: string, characterId: string | null): boolean;
  /** A login in another world: lets the character go, unless it is in a fight (see WorldSessions.release). */
  releaseCharacter(characterId: string): Promise<Release>;
  /**
   * Applies an admin's moderation to the sessions here it concerns: what it reached (see
   * WorldSessions.moderate). A number alone, the sessions, is the answer of the version before, met
   * during a rolling deploy.
   */
  moderate(change: ModerationChange): ModerationReach | number;
  /** Tells every player here an admin's announcement, as a server notice: how many. */
  announce(text: string): number;
  // --- the agent endpoints: the agents run in the world's process ---
  answerAgents(request: AgentRequest): Promise<AgentReply>;
  // --- the trade rooms ---
  /** An online player's inventory, which offers are checked against. */
  inventoryOf(playerId: string): InventoryEntry[] | undefined;
  /** Swaps the offers in one database transaction, answering within `answerWithinMs`. */
  commitTrade(
    tradeId: string,
    a: TradeParticipant,
    b: TradeParticipant,
    answerWithinMs: number,
  ): Promise<TradeCommitOutcome>;
  /**
   * The end of a trade, for a player who is not in the trade's room: its world connection tells it
   * (false: the player has none).
   */
  tellTradeEvent(playerId: string, event: string, data: unknown): boolean;
  /** A trade's room closed: its players may trade again. */
  tradeEnded(tradeId: string): void;
}

/** A trade's room as its world calls it. */
export interface TradePort {
  /** Cancels on a player's behalf (a `tradeCancel` the world took, a player gone, the shutdown). */
  cancelFor(playerId: string, reason: TradeEndReason): void;
}
