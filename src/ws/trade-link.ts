import { type AuthContext, connectClientToRoom, matchMaker } from "@colyseus/core";
import type { WebSocket } from "ws";
import type { Logger } from "../logger.js";
import type { Reply } from "../rooms/messages.js";
import type { TradeRoom } from "../rooms/TradeRoom.js";
import { JsonClient } from "./JsonClient.js";

interface OpenTrade {
  tradeId: string;
  /** Resolves with the trade room's client once joined (undefined when the join failed). */
  joined: Promise<{ room: TradeRoom; client: JsonClient } | undefined>;
}

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
  ) {}

  /** Watches what the world sends this connection for the start of a trade. */
  observe(event: string, data: unknown): void {
    if (event !== "tradeStarted") return;
    const { tradeId } = data as { tradeId: string };
    this.current = { tradeId, joined: this.join(tradeId) };
  }

  forward(event: string, data: unknown, reply: Reply): void {
    const tradeId = (data as { tradeId?: unknown } | undefined)?.tradeId;
    const trade = this.current;
    if (!trade || trade.tradeId !== tradeId) {
      reply("tradeError", { tradeId, reason: "not_found", message: "There is no such trade." });
      return;
    }
    void trade.joined.then((joined) => {
      if (joined) joined.room.handleMessage(joined.client as never, event, data, reply);
      else reply("tradeError", { tradeId, reason: "not_found", message: "The trade has ended." });
    });
  }

  close(code: number): void {
    void this.current?.joined.then((joined) => joined?.client.ref.emit("close", code));
    this.current = undefined;
  }

  private async join(tradeId: string) {
    try {
      const seat = await matchMaker.joinById(tradeId, {}, this.context);
      const room = matchMaker.getLocalRoomById(seat.roomId) as TradeRoom | undefined;
      if (!room) throw new Error("the trade runs on another server process");
      const client = new JsonClient(seat.sessionId, this.socket, {
        maxBufferedBytes: Number.POSITIVE_INFINITY,
        sharesSocket: true,
        onEvent: (event) => {
          if (
            (event === "tradeCompleted" || event === "tradeCancelled") &&
            this.current?.tradeId === tradeId
          ) {
            this.current = undefined;
          }
        },
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
