import { type AuthContext, type Client, CloseCode, type Delayed, Room, ServerError } from "@colyseus/core";
import { WebSocket } from "ws";
import {
  acceptTrade,
  addToOffer,
  cancelTrade,
  completeTrade,
  expireTrade,
  expireUnjoinedTrade,
  failTradeCommit,
  offersAsHeld,
  removeFromOffer,
  type Trade,
  type TradeEvent,
  type TradeResult,
  type TradeTransition,
} from "../game/trade.js";
import { TRADE_ERROR_MESSAGES, type TradeErrorReason } from "../game/trade-reasons.js";
import { tradeUpdatedView } from "../game/trade-views.js";
import { admitMessage } from "../limits/flood-guard.js";
import { within } from "../limits/time-limit.js";
import type { Runtime } from "../ports/runtime.js";
import type { TradeEndReason, TradePort } from "../ports/world-port.js";
import type { PlayerAuth } from "../ports/world-seats.js";
import { isJsonClient } from "../protocol/json-client.js";
import {
  eventLabel,
  isTradeMessage,
  isWorldMessage,
  type Reply,
  readTradeMessage,
  sdkMessage,
  type TradeMessage,
} from "../protocol/messages.js";
import { countMessageIn, countRefusal } from "../telemetry/metrics.js";
import { markFramesOf } from "./frame-sender.js";
import { refusedForSize, watchMessageSizes } from "./message-sizes.js";
import { authenticatePlayer, identityOf, toldSafely } from "./room-auth.js";
import { countSelfAnsweredFrames } from "./self-answered-frames.js";
import { TradeEnding } from "./trade-ending.js";
import { isSignedByWorld, type TradeRoomOptions } from "./trade-opening.js";
import { TradeWorldLink } from "./trade-world-link.js";
import { type Cause, sendTradeEvents } from "./world-trades.js";

type TradeClient = Client<{ auth: PlayerAuth }>;

const EXPIRY_CHECK_MS = 1000;
/** How long a finished trade's room waits for a player still joining before it closes anyway. */
const FINAL_LINGER_MS = 10_000;
/**
 * How long a started trade waits for both players to join its room. One who cannot (its join refused, or
 * its client gone) would otherwise leave the other waiting on a trade no event ever ends.
 */
const JOIN_WAIT_MS = 15_000;

const ALREADY_IN_THE_ROOM = "this player is in the trade's room already, on another connection";
const BOTH_SIDES =
  "this account plays both sides of the trade: join with the characterId option naming the character you play";

/**
 * How long an accept waits for the world's answer to its check of the offers before it goes on without
 * (the swap re-checks them): a world whose process stalled or died is left to the swap to find gone.
 */
const OFFER_CHECK_MS = 1000;

/**
 * One trade session between two players, from the offer stage to its end. Its roomId is the tradeId.
 * It reaches the players' world only through its TradeWorldLink, so the two rooms may live in different
 * processes; the swap itself is one database transaction run by the world that holds both players'
 * inventories.
 */
export class TradeRoom extends Room<{ client: TradeClient }> implements TradePort {
  protected runtime!: Runtime;
  private trade!: Trade;
  private world!: TradeWorldLink;
  /** The trade has ended (see end): nothing changes it any more, and the expiry check is stopped. */
  private ended = false;
  private ending!: TradeEnding;
  private expiryCheck: Delayed | undefined;
  /** Players who joined the room at some time. */
  private readonly joinedOnce = new Set<string>();
  /** Messages are handled one at a time: each may wait on the world. */
  private queue: Promise<void> = Promise.resolve();

  override onCreate(options: TradeRoomOptions): void {
    if (!isSignedByWorld(this.runtime.jwtSecret, options))
      throw new ServerError(403, "trades are opened by the world");
    this.trade = options.trade;
    this.world = new TradeWorldLink(this.runtime, options.world, options.trade.id);
    this.ending = new TradeEnding(this.clock, this.runtime.logger);
    this.roomId = options.trade.id;
    // No cap on seats: two seats held by one player would lock the partner out of its own trade. Each
    // side has one client here instead (see onAuth and onJoin).
    void this.setPrivate(true);
    // The room closes itself once the trade ends (see end): emptied by a refused join (a stranger, say)
    // before its players are in, it would close under their trade.
    this.autoDispose = false;
    this.onMessage("*", (client, type, message) => {
      const trader = client as TradeClient;
      const { event, data } = sdkMessage(type, message);
      const flood = this.runtime.floodGuards.of(trader.auth!.characterId);
      if (refusedForSize(trader, event, flood)) return;
      if (this.admits(trader, event)) this.handleMessage(trader, event, data);
    });
    this.expiryCheck = this.clock.setInterval(
      () => this.serially(async () => this.apply(expireTrade(this.trade, Date.now()))),
      EXPIRY_CHECK_MS,
    );
    this.clock.setTimeout(() => {
      const missing = this.trade.sides.filter((side) => !this.joinedOnce.has(side.player.id));
      if (missing.length === 0) return;
      this.runtime.logger.warn(
        { tradeId: this.trade.id, missing: missing.map((side) => side.player.id) },
        "a started trade's player never joined its room: the trade ends",
      );
      void this.serially(async () => this.apply(expireUnjoinedTrade(this.trade)));
    }, JOIN_WAIT_MS);
  }

  /**
   * Which side joins: the character the join option `characterId` names, else the one side whose seat
   * the identity holds (an account playing both sides, a main and its alt, must name which).
   */
  override async onAuth(_client: Client, options: unknown, context: AuthContext): Promise<PlayerAuth> {
    const named = (options as { characterId?: unknown } | undefined)?.characterId;
    if (named !== undefined && typeof named !== "string")
      throw new ServerError(400, "join options: characterId must be a string");
    const sides = this.trade.sides.map((side) => side.player.id);
    if (named !== undefined && !sides.includes(named))
      throw new ServerError(403, "not a player of this trade");
    if (named === undefined) {
      const { subject } = await toldSafely(this.runtime, () => identityOf(this.runtime, context));
      if (sides.every((id) => this.runtime.worldSeats.of(subject, id)))
        throw new ServerError(400, BOTH_SIDES);
    }
    // The trade's players are in the world: their seats there answer first, so that a trade opened while
    // the database stalls is joined all the same.
    const seatsFirst = named === undefined ? sides : [named];
    const player = await toldSafely(this.runtime, () =>
      authenticatePlayer(this.runtime, context, named, { seatsFirst }),
    );
    if (!this.sideOf(player.characterId)) throw new ServerError(403, "not a player of this trade");
    if (this.clientsOf(player.characterId).length > 0) throw new ServerError(409, ALREADY_IN_THE_ROOM);
    return player;
  }

  override onJoin(client: TradeClient): void {
    const playerId = client.auth!.characterId;
    // A second client of one player that passed onAuth beside the first: it goes, the trade stays.
    if (this.clientsOf(playerId).length > 1) throw new ServerError(409, ALREADY_IN_THE_ROOM);
    this.joinedOnce.add(playerId);
    // A /ws client's frames never come this way: its channel counts them.
    countSelfAnsweredFrames(client, () => this.runtime.floodGuards.of(playerId));
    watchMessageSizes(client);
    markFramesOf(client, { sessionId: client.sessionId, characterId: playerId });
    if (!this.ended) {
      client.send("tradeUpdated", tradeUpdatedView(this.trade, playerId));
      return;
    }
    this.ending.joinedAfter(client, playerId);
  }

  /**
   * A player who drops out of the trade's room is gone from the trade, even if their seat in the world is
   * kept; not a second client of one still in the room (refused as it joined).
   */
  override onLeave(client: TradeClient): void {
    const playerId = client.auth!.characterId;
    if (this.clientsOf(playerId).length > 0) return;
    this.cancelFor(playerId, "partner_disconnected");
  }

  private clientsOf(playerId: string): TradeClient[] {
    return this.clients.filter((client) => client.auth?.characterId === playerId);
  }

  /** The server is stopping: an open trade is cancelled (a committing one finishes first), then the room closes. */
  override onBeforeShutdown(): void {
    void this.serially(async () => {
      const [a] = this.trade.sides;
      this.apply(cancelTrade(this.trade, a.player.id, "server_shutdown"));
    }).then(() => this.disconnect(CloseCode.SERVER_SHUTDOWN));
  }

  override onDispose(): Promise<unknown> | undefined {
    // A room refused at creation has no trade to release.
    return this.trade && this.world.release();
  }

  /**
   * The trade is over: its players may trade again at once, joined clients are let go, and the room
   * closes itself when empty (a player still joining is told the outcome in onJoin first).
   */
  private end(trade: Trade, events: TradeEvent[]): void {
    this.ended = true;
    this.expiryCheck?.clear();
    this.ending.reached(trade, events);
    void this.world.release();
    for (const client of this.clients) this.ending.letGoOnceJoined(client);
    this.clock.setTimeout(() => void this.disconnect(), FINAL_LINGER_MS);
  }

  /** Cancels on a player's behalf: a dropped connection, or called by the world (a `tradeCancel` it took). */
  cancelFor(playerId: string, reason: TradeEndReason): void {
    void this.serially(async () => this.apply(cancelTrade(this.trade, playerId, reason)));
  }

  /** Counts an SDK client's message with the rest of its player's (a /ws client's were counted by its channel). */
  private admits(client: TradeClient, type: string): boolean {
    const flood = this.runtime.floodGuards.of(client.auth!.characterId);
    return admitMessage(flood, client, (error) => client.send("error", { ...error, event: type }));
  }

  /**
   * The one entry point of trade messages, for SDK clients and /ws clients alike. What the message causes
   * for its sender goes through `reply`, so that a /ws client's request `id` is echoed on it.
   */
  handleMessage(
    client: TradeClient,
    type: string,
    message: unknown,
    reply: Reply = client.send.bind(client),
  ): void {
    const playerId = client.auth!.characterId;
    countMessageIn(eventLabel(type));
    // A refusal names the trade the message named (a stale one's id, for not_found), as /ws does.
    const refuse = (reason: TradeErrorReason, tradeId = this.trade.id) => {
      countRefusal(reason);
      reply("tradeError", { tradeId, reason, message: TRADE_ERROR_MESSAGES[reason] });
    };
    // A world event sent here is refused as the world refuses a trade event sent to it, not as unknown.
    if (isWorldMessage(type) && !isTradeMessage(type)) {
      countRefusal("wrong_room");
      reply("error", { code: "wrong_room", message: "Send this to the world's room.", event: type });
      return;
    }
    const read = readTradeMessage(type, message);
    if ("error" in read) {
      countRefusal(read.error.code);
      reply("error", read.error);
    } else if (read.data.tradeId !== this.trade.id) refuse("not_found", read.data.tradeId);
    else {
      const cause: Cause = { playerId, reply };
      void this.serially(async () => {
        const result = await this.decide(playerId, read);
        if (!result.ok) refuse(result.reason);
        else {
          this.apply(result, cause);
          if (this.trade.stage === "committing") await this.commit(cause);
        }
      });
    }
  }

  private async decide(playerId: string, { type, data }: TradeMessage): Promise<TradeResult> {
    const now = Date.now();
    const items = this.runtime.gameData.items;
    switch (type) {
      case "tradeAddItem": {
        const inventory = await this.world.inventoryOf(playerId);
        if (!inventory) return { ok: false, reason: "player_offline" };
        return addToOffer(this.trade, playerId, data.inventorySlot, data.quantity, inventory, items, now);
      }
      case "tradeRemoveItem":
        return removeFromOffer(this.trade, playerId, data.inventorySlot, data.quantity, now);
      case "tradeAccept": {
        const changed = await this.offersAsHeld(now);
        return changed ? { ok: true, ...changed } : acceptTrade(this.trade, playerId, items, now);
      }
      case "tradeCancel":
        return cancelTrade(this.trade, playerId);
    }
  }

  /**
   * The trade with its offers cut to what the players' inventories hold now (see offersAsHeld), or
   * undefined when they stand. A player offline is left to the disconnect that cancels the trade, and a
   * world that does not answer to the swap, which finds it gone and ends the trade.
   */
  private async offersAsHeld(now: number): Promise<TradeTransition | undefined> {
    const [a, b] = this.trade.sides;
    const inventoryOf = (playerId: string) =>
      within(this.world.inventoryOf(playerId), OFFER_CHECK_MS, undefined).catch(() => undefined);
    const [first, second] = await Promise.all([inventoryOf(a.player.id), inventoryOf(b.player.id)]);
    if (!first || !second) return undefined;
    return offersAsHeld(this.trade, [first, second], now);
  }

  private async commit(cause: Cause): Promise<void> {
    const [a, b] = this.trade.sides;
    const outcome = await this.world.commit(
      { characterId: a.player.id, offer: a.offer },
      { characterId: b.player.id, offer: b.offer },
    );
    this.apply(outcome.ok ? completeTrade(this.trade) : failTradeCommit(this.trade, outcome.reason), cause);
  }

  /**
   * Takes a transition: new state, its events to the players (the cause's own as replies to its
   * message), and the end of the room when final.
   */
  private apply(result: TradeResult | TradeTransition, cause?: Cause): void {
    // An ended trade's state stands: taken again, its end would be counted, logged and told anew.
    if (this.ended || ("ok" in result && !result.ok)) return;
    const { trade, events } = result as TradeTransition;
    this.trade = trade;
    const final = trade.stage === "completed" || trade.stage === "cancelled";
    sendTradeEvents(events, (to, event, data) => this.sendTo(to, event, data, final), cause);
    if (final) this.end(trade, events);
  }

  /**
   * Sends a player an event of the trade. The end of the trade reaches a player not in the room (its
   * join refused or still under way) through the world, so that every started trade ends for both; or,
   * when the world has no connection of the player's, its join here (see onJoin).
   */
  private sendTo(playerId: string, event: string, data: unknown, final: boolean): void {
    const client = this.clientOf(playerId);
    if (client && listens(client)) client.send(event, data);
    else if (final) this.ending.toldElsewhere(playerId, this.world.tell(playerId, event, data));
  }

  private clientOf(playerId: string): TradeClient | undefined {
    return this.clients.find((client) => client.auth?.characterId === playerId);
  }

  private sideOf(playerId: string) {
    return this.trade.sides.find((side) => side.player.id === playerId);
  }

  private serially(task: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(task).catch((error: unknown) => {
      this.runtime.logger.error({ err: error, tradeId: this.trade.id }, "trade step failed");
    });
    return this.queue;
  }
}

/** The TradeRoom class bound to one server's runtime. */
export function defineTradeRoom(runtime: Runtime): typeof TradeRoom {
  return class extends TradeRoom {
    protected override runtime = runtime;
  };
}

/**
 * Whether the client still hears what it is sent. A /ws player's trade client shares the world
 * connection's socket: a second login closes that at once, before the room hears of it, and the end of
 * the trade goes to the new login instead.
 */
function listens(client: TradeClient): boolean {
  return !isJsonClient(client) || client.readyState === WebSocket.OPEN;
}
