import { type AuthContext, connectClientToRoom, matchMaker } from "@colyseus/core";
import type { WebSocket } from "ws";
import { TRADE_ERROR_MESSAGES, type TradeErrorReason } from "../game/trade-reasons.js";
import { JsonClient } from "../protocol/json-client.js";
import { type Reply, readTradeMessage } from "../protocol/messages.js";
import type { TradeRoom } from "../rooms/TradeRoom.js";
import type { Logger } from "../telemetry/logger.js";

interface OpenTrade {
  tradeId: string;
  /** Resolves with the trade room's client once joined (undefined when the join failed). */
  joined: Promise<{ room: TradeRoom; client: JsonClient } | undefined>;
}

/** Hands a message to the world room, which holds trade requests until they are accepted. */
export type ToWorld = (event: string, data: unknown, reply: Reply) => void;
/** Why the world finds nothing of the player's to act on in a trade message naming `tradeId`. */
export type TradeRefusal = (tradeId: string) => TradeErrorReason;

/**
 * Hides the TradeRoom from a /ws client: when the world announces `tradeStarted`, the connection joins
 * that trade's room with a second JsonClient on the same socket, and trade events are forwarded to it.
 */
export class TradeLink {
  private current?: OpenTrade;

  constructor(
    private readonly socket: WebSocket,
    private readonly context: AuthContext,
    private readonly logger: Logger,
    private readonly toWorld: ToWorld,
    private readonly refusalFor: TradeRefusal,
    /** The character the connection plays: it joins the trade as that side. */
    private readonly characterId: () => string,
  ) {}

  /**
   * Follows the trade from what the connection is sent, by the world or the trade's room: replies to
   * the player's own messages come through the world's client, the partner's events through the trade's.
   */
  observe(event: string, data: unknown): void {
    if (event === "tradeStarted") {
      const { tradeId } = data as { tradeId: string };
      this.current = { tradeId, joined: this.join(tradeId) };
    } else if (event === "tradeCompleted" || event === "tradeCancelled") {
      if (this.current?.tradeId === (data as { tradeId: string }).tradeId) this.current = undefined;
    }
  }

  /**
   * Sends a trade event to the connection's trade, or a `tradeCancel` of another one to the world; any
   * other event naming another trade is refused with the world's reason.
   */
  forward(event: string, data: unknown, reply: Reply): void {
    const read = readTradeMessage(event, data);
    if ("error" in read) {
      reply("error", read.error);
      return;
    }
    const { tradeId } = read.data;
    const refuse = (reason: TradeErrorReason) =>
      reply("tradeError", { tradeId, reason, message: TRADE_ERROR_MESSAGES[reason] });
    const trade = this.current?.tradeId === tradeId ? this.current : undefined;
    if (trade) {
      void trade.joined.then((joined) => {
        if (joined) joined.room.handleMessage(joined.client as never, event, data, reply);
        else refuse("not_found");
      });
    } else if (read.type === "tradeCancel") this.toWorld(event, data, reply);
    else refuse(this.refusalFor(tradeId));
  }

  close(code: number): void {
    void this.current?.joined.then((joined) => joined?.client.ref.emit("close", code));
    this.current = undefined;
  }

  private async join(tradeId: string) {
    try {
      const seat = await matchMaker.joinById(tradeId, { characterId: this.characterId() }, this.context);
      const room = matchMaker.getLocalRoomById(seat.roomId) as TradeRoom | undefined;
      if (!room) throw new Error("the trade runs on another server process");
      const client = new JsonClient(seat.sessionId, this.socket, {
        maxBufferedBytes: Number.POSITIVE_INFINITY,
        sharesSocket: true,
        onEvent: (event, data) => this.observe(event, data),
      });
      await connectClientToRoom(room, client as never, this.context, {});
      await client.joined();
      return { room, client };
    } catch (error) {
      this.logger.warn({ err: error, tradeId }, "/ws client could not join its trade");
      return undefined;
    }
  }
}
