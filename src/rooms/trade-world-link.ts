import { matchMaker } from "@colyseus/core";
import type { TradeParticipant } from "../db/trades.js";
import type { InventoryEntry } from "../game/character-state.js";
import type { Runtime } from "../ports/runtime.js";
import type { TradeCommitOutcome, WorldPort } from "../ports/world-port.js";
import type { OpeningWorld } from "./trade-opening.js";

/**
 * How long a trade waits for the world's answer to its commit when the world is on another process.
 * Colyseus's 2 s would report a swap queued behind slow writes as failed while the world commits it.
 * The world answers once the outcome is known: after the writes queued ahead of the swap, the swap, and
 * at worst the 5 s check of a swap whose answer was lost. The world is told this wait, and refuses a swap
 * it could no longer answer within it, so what the players are told is what happened.
 */
const COMMIT_ANSWER_MS = 30_000;
/**
 * How often a trade waiting for the world's answer checks that the world's room still listens, and how
 * many checks in a row must find it gone (a Redis that restarts drops every subscription for a moment,
 * and the world subscribes again at once) before the world's process is checked as the matchmaker does.
 */
const WORLD_CHECK_MS = 1000;
const WORLD_GONE_CHECKS = 2;

/**
 * A trade room's calls to the world that opened it, through `matchMaker.remoteRoomCall` (see WorldPort),
 * so that the two rooms may live in different processes: the players' inventories, the swap (which the
 * world runs in one database transaction, holding both inventories), and the end of the trade.
 */
export class TradeWorldLink {
  private released?: Promise<unknown>;

  constructor(
    private readonly runtime: Pick<Runtime, "logger" | "trades" | "worldLeases">,
    private readonly world: OpeningWorld,
    private readonly tradeId: string,
  ) {}

  /** An online player's inventory, as the world holds it. */
  inventoryOf(playerId: string): Promise<InventoryEntry[] | undefined> {
    return matchMaker.remoteRoomCall<WorldPort>(this.world.roomId, "inventoryOf", [playerId]);
  }

  /** Tells the world once, whether the trade ended or the room closed first, that its players may trade again. */
  release(): Promise<unknown> {
    this.released ??= matchMaker
      .remoteRoomCall<WorldPort>(this.world.roomId, "tradeEnded", [this.tradeId])
      .catch(() => {});
    return this.released;
  }

  /**
   * Tells a player not in the trade's room an event of the trade through its world connection: false
   * when the world has no connection of the player's (or could not be asked).
   */
  tell(playerId: string, event: string, data: unknown): Promise<boolean> {
    return matchMaker
      .remoteRoomCall<WorldPort>(this.world.roomId, "tellTradeEvent", [playerId, event, data])
      .then(
        (told) => told === true,
        (error: unknown) => {
          this.runtime.logger.warn(
            { err: error, tradeId: this.tradeId },
            "the world could not tell a trade's end",
          );
          return false;
        },
      );
  }

  /** The swap's outcome: the world's answer, or the database's once the world is found gone. */
  async commit(a: TradeParticipant, b: TradeParticipant): Promise<TradeCommitOutcome> {
    const answer = this.askWorldToCommit(a, b);
    return (await this.settleIfWorldGone(answer)) ?? (await answer);
  }

  private async askWorldToCommit(a: TradeParticipant, b: TradeParticipant): Promise<TradeCommitOutcome> {
    try {
      return await matchMaker.remoteRoomCall<WorldPort>(
        this.world.roomId,
        "commitTrade",
        [this.tradeId, a, b, COMMIT_ANSWER_MS],
        COMMIT_ANSWER_MS,
      );
    } catch (error) {
      this.runtime.logger.error({ err: error, tradeId: this.tradeId }, "trade commit did not answer");
      return { ok: false, reason: "commit_failed" };
    }
  }

  /**
   * While the world's answer is awaited: should the world's room stop listening and its process not
   * answer the matchmaker's health check (it died), the outcome is settled without it, so that the players are not kept waiting for an answer that cannot
   * come. The world's lease is revoked first, which waits for its transactions under way, so the swap
   * can no longer commit; the trade's history row then says whether it did. Undefined once the world
   * answers, or when the database cannot settle it (the world's answer, or its lapse, then does).
   */
  private async settleIfWorldGone(answer: Promise<unknown>): Promise<TradeCommitOutcome | undefined> {
    // A world in this very process is not gone while this room runs.
    if (matchMaker.getLocalRoomById(this.world.roomId)) return undefined;
    let answered = false;
    void answer.finally(() => {
      answered = true;
    });
    for (let gone = 0; gone < WORLD_GONE_CHECKS; ) {
      await Promise.race([answer, new Promise((resolve) => setTimeout(resolve, WORLD_CHECK_MS))]);
      if (answered) return undefined;
      gone = (await this.worldListens().catch(() => true)) ? 0 : gone + 1;
    }
    // A world that closed in a process that still answers (a graceful shutdown) answers its trades first.
    if (answered || (await matchMaker.healthCheckProcessId(this.world.processId))) return undefined;
    try {
      await this.runtime.worldLeases.revoke(this.world.epoch, this.world.world ?? 1);
      const completed = await this.runtime.trades.wasCompleted(this.tradeId);
      this.runtime.logger.warn(
        { tradeId: this.tradeId, epoch: this.world.epoch, completed },
        "the trade's world is gone: its lease is revoked and the trade settled from the database",
      );
      return completed ? { ok: true } : { ok: false, reason: "commit_failed" };
    } catch (error) {
      this.runtime.logger.error(
        { err: error, tradeId: this.tradeId },
        "the trade's world is gone, and the database could not settle the trade: waiting for the answer",
      );
      return undefined;
    }
  }

  /** Whether the world's room is subscribed to its channel in Redis (@colyseus/core's getRoomChannel). */
  private async worldListens(): Promise<boolean> {
    const channel = `$${this.world.roomId}`;
    return (await matchMaker.presence.channels(channel)).includes(channel);
  }
}
