import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  type AuthContext,
  CloseCode,
  connectClientToRoom,
  createAuthContext,
  Deferred,
  type IRoomCache,
  matchMaker,
  ServerError,
} from "@colyseus/core";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { admitMessage } from "../limits/flood-guard.js";
import { MAX_UNREAD_BYTES } from "../net/slow-reader.js";
import type { Runtime } from "../ports/runtime.js";
import type { PlayerAuth } from "../ports/world-seats.js";
import { CLOSE_UNAVAILABLE } from "../protocol/close-codes.js";
import { JsonClient } from "../protocol/json-client.js";
import { ListingsUnreachableError } from "../protocol/listings-unreachable.js";
import { isTradeMessage, MAX_READ_BYTES, type Refusal } from "../protocol/messages.js";
import { WORLD_UNREACHABLE_MESSAGE } from "../rooms/live-world.js";
import { INTERNAL_JOIN_FAILURE, identityOf } from "../rooms/room-auth.js";
import type { WorldRoom } from "../rooms/WorldRoom.js";
import { chooseWorld, unknownWorld, WorldFullError, worldParameter } from "../rooms/world-choice.js";
import { worldHoldingSeat } from "../rooms/world-claims.js";
import { openWorld } from "../rooms/world-listing.js";
import { LoopStalls, type StallMark } from "../tuning/loop-stalls.js";
import { readEnvelope } from "./envelope.js";
import { type HeldFrames, holdFrames } from "./held-frames.js";
import { type Frame, type RelayTarget, relay, relayOpen } from "./relay.js";
import { type RelayPass, relayPass, relayTarget } from "./relay-pass.js";
import { handBackHop, type RelayedHop } from "./relayed-hops.js";
import { TradeLink } from "./trade-link.js";
import { UpgradeAdmission } from "./upgrade-admission.js";
import { LOGIN_TOO_OLD, refuse, WORLD_UNREACHABLE } from "./upgrade-refusals.js";

/** A client's /ws connection, as this process holds it. */
interface Connection {
  ws: WebSocket;
  tcp: Duplex;
  context: AuthContext;
  /** Relayed here by the process holding the client's socket: a hop goes back there (see handBackHop). */
  relayed: boolean;
}

/**
 * The interface's JSON channel: a plain WebSocket at /ws whose frames are `{event, data, id?}`. Each connection is
 * joined to the world room as a JsonClient, so the room has one code path for every kind of client.
 */
export class JsonChannel {
  // Frames up to 64 kB are read so that an oversized one can be answered instead of cutting the connection.
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_READ_BYTES });
  private readonly pingTimer: NodeJS.Timeout;
  private readonly alive = new WeakSet<WebSocket>();
  private readonly relayPass: RelayPass;
  private readonly admission: UpgradeAdmission;
  private readonly stalls = new LoopStalls();

  constructor(private readonly runtime: Runtime) {
    this.relayPass = relayPass(runtime.jwtSecret);
    this.admission = new UpgradeAdmission(runtime, this.relayPass);
    this.pingTimer = setInterval(() => this.pingAll(), runtime.config.WS_PING_MS).unref();
  }

  /**
   * Handles an HTTP upgrade on /ws: authenticates, then joins the world here or relays to its process.
   * Whatever fails on the way (the presence or the database unreachable) is answered with 503.
   */
  async handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // The HTTP server stops listening for the socket's errors once it hands the upgrade over: a client
    // that resets while it is being answered must not take the process down.
    socket.on("error", () => socket.destroy());
    const arrived = this.stalls.mark();
    try {
      await this.answerUpgrade(request, socket, head, arrived);
    } catch (error) {
      // Redis's outage is logged once where it begins (see scale-out.ts), not once a login.
      const unreachable = error instanceof ListingsUnreachableError;
      if (!unreachable) this.runtime.logger.error({ err: error }, "/ws upgrade failed");
      const message = unreachable ? error.message : "retry later";
      if (socket.writable) refuse(socket, { status: 503, code: "unavailable", message });
    }
  }

  private async answerUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    arrived: StallMark,
  ): Promise<void> {
    if (this.tooOld(arrived)) return refuse(socket, LOGIN_TOO_OLD);
    const url = new URL(request.url ?? "/", "http://localhost");
    const context = createAuthContext({
      headers: request.headers as Record<string, string>,
      token: url.searchParams.get("token"),
      remoteAddress: request.socket.remoteAddress,
    });
    const refusal = await this.admission.admit(request, context);
    if (refusal) return refuse(socket, refusal);
    const asked = worldParameter(url.searchParams.get("world"));
    if (Number.isNaN(asked)) return refuse(socket, unknownWorld(this.runtime.config));
    const characterId = url.searchParams.get("characterId") || undefined;
    const choice = await chooseWorld(this.runtime.config, asked, async () =>
      worldHoldingSeat((await identityOf(this.runtime, context)).subject, characterId),
    );
    if ("refusal" in choice) return refuse(socket, choice.refusal);
    const world = await openWorld(choice.world);
    // Checked again just before the login is carried out: the process may have stood still meanwhile.
    if (this.tooOld(arrived)) return refuse(socket, LOGIN_TOO_OLD);
    if (world.processId !== matchMaker.processId) {
      return this.relayToWorld(world, choice.world, request, socket, head, context, url);
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.watch(ws);
      const held = holdFrames(ws, this.runtime.config.RATE_LIMIT_WS_PER_SEC);
      const connection = { ws, tcp: socket, context, relayed: this.relayPass.shownBy(request) };
      this.open(connection, world.roomId, choice.world, characterId, held).catch((error: unknown) =>
        this.joinFailed(ws, error),
      );
    });
  }

  /**
   * Scaled out, each world runs on one process; a connection that reached another one is relayed to the
   * /ws channel of its world's, with its token, the character it asked for and the world.
   */
  private relayToWorld(
    listing: IRoomCache,
    worldId: number,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    context: AuthContext,
    url: URL,
  ): void {
    const target = this.relayTarget(listing, worldId, url.searchParams.get("characterId"), context, request);
    if (!target) {
      refuse(socket, WORLD_UNREACHABLE);
      return;
    }
    relay(this.wss, request, socket, head, target, {
      maxBufferedBytes: MAX_UNREAD_BYTES,
      pingMs: this.runtime.config.WS_PING_MS,
      holdLimit: this.runtime.config.RATE_LIMIT_WS_PER_SEC,
      onOpen: (ws) => this.watch(ws),
      onHop: (ws, hop) => this.hopHere({ ws, tcp: socket, context, relayed: false }, hop),
      onUnreachable: (unanswered, error) => {
        this.runtime.logger.warn({ err: error, target: target.url }, "/ws relay to the world failed");
        refuse(unanswered, WORLD_UNREACHABLE);
        // A process that does not answer the matchmaker either is gone: its rooms are then unlisted,
        // and the next connection opens the world again, in the process it reaches.
        void matchMaker.healthCheckProcessId(listing.processId);
      },
    });
  }

  /** Where a world's process is relayed to (see relayTarget); undefined when it has no public address. */
  private relayTarget(
    { publicAddress }: IRoomCache,
    worldId: number,
    characterId: string | null | undefined,
    context: AuthContext,
    request: IncomingMessage | undefined,
  ): RelayTarget | undefined {
    if (publicAddress)
      return relayTarget(this.relayPass, this.runtime.config.PUBLIC_WS_URL, publicAddress, {
        worldId,
        characterId,
        context,
        request,
      });
    this.runtime.logger.error("the world runs on a process without PUBLIC_ADDRESS: /ws cannot reach it");
    return undefined;
  }

  /**
   * Looks after an accepted socket: it is pinged from now on (one that missed the previous ping is closed
   * as dead), and a frame it cannot read (too large, not UTF-8, unmasked) closes it alone: `ws` has sent
   * the close code, and the error must not reach the process as an uncaught one.
   */
  private watch(ws: WebSocket): void {
    this.alive.add(ws);
    ws.on("pong", () => this.alive.add(ws));
    ws.on("error", (error) =>
      this.runtime.logger.info({ err: error }, "/ws connection closed on a bad frame"),
    );
  }

  /**
   * Whether a login has waited longer than WS_LOGIN_MAX_STALL_MS while this process stood still (it was
   * stopped, say): its client has given up and may have logged in elsewhere since, and carrying it out
   * would replace that live session (4409). It is refused instead, and logged. Time spent waiting for
   * Redis or the database does not count: the process answers those logins itself.
   */
  private tooOld(arrived: StallMark): boolean {
    const stalledMs = Math.round(this.stalls.stalledFor(arrived));
    const maxMs = this.runtime.config.WS_LOGIN_MAX_STALL_MS;
    if (stalledMs <= maxMs) return false;
    this.runtime.logger.warn(
      { stalledMs, maxMs },
      "/ws login dropped: it waited in a stopped process longer than its client waits (WS_LOGIN_MAX_STALL_MS)",
    );
    return true;
  }

  close(): void {
    this.stalls.stop();
    clearInterval(this.pingTimer);
    for (const ws of this.wss.clients) ws.close(CloseCode.SERVER_SHUTDOWN, "server shutting down");
    this.wss.close();
  }

  /**
   * Joins the connection to a world that runs in this process (see answerUpgrade); on `player:hop`, takes
   * it out and into the other world (see hop). `held` are the frames that came meanwhile (during the
   * login, or a hop), and go on coming until the world takes them.
   */
  private async open(
    connection: Connection,
    roomId: string,
    world: number,
    characterId: string | undefined,
    held: HeldFrames,
  ): Promise<void> {
    const { ws, tcp, context } = connection;
    // A close that comes before the world has taken the client in waits until it has: Colyseus would
    // miss one that came before the join began (the player then stayed in the world for good), and one
    // during it would leave the world's count of players one too high.
    let closedEarly: number | undefined;
    let closeNow: ((code: number) => void) | undefined;
    const onClose = (code: number) => {
      if (closeNow) closeNow(code);
      else closedEarly ??= code;
    };
    ws.on("close", onClose);
    const seat = await matchMaker.joinById(roomId, { characterId, world }, context);
    const room = matchMaker.getLocalRoomById(seat.roomId) as WorldRoom | undefined;
    // The world closed between its lookup and the seat (a shutdown, a replacement): connecting again
    // finds the world where it runs now.
    if (!room) throw new ServerError(503, "the world closed meanwhile: connect again");
    const trades: TradeLink = new TradeLink(
      ws,
      context,
      this.runtime.logger,
      (event, data, reply) => room.handleMessage(client as never, event, data, reply),
      (tradeId) => room.tradeRefusalFor((client.auth as PlayerAuth).characterId, tradeId),
      () => (client.auth as PlayerAuth).characterId,
    );
    const greeting = new Deferred<void>();
    // Set once the world answered a player:hop: the connection leaves for that world after the answer.
    let hopTo: number | undefined;
    const client = new JsonClient(seat.sessionId, ws, {
      maxBufferedBytes: MAX_UNREAD_BYTES,
      tcp,
      onEvent: (event, data) => {
        if (event === "player:sync") greeting.resolve();
        trades.observe(event, data);
        if (event === "player:hop" && hopTo === undefined) {
          hopTo = (data as { world: number }).world;
          queueMicrotask(leave);
        }
      },
    });
    // Frames that arrive while joining wait, so none is handled (nor refused) before the first
    // player:sync, which may itself wait for the world's database (see TickLoop.whenPublished); so do
    // those that arrive during a hop, for the next world.
    let early: Frame[] = [];
    let ready = false;
    const onMessage = (data: RawData, isBinary: boolean) => {
      if (ready && hopTo === undefined) this.handleFrame(room, client, trades, data, isBinary);
      // What the flood limit would let through anyway; anything beyond is dropped.
      else if (early.length < this.runtime.config.RATE_LIMIT_WS_PER_SEC) early.push({ data, isBinary });
    };
    const close = (code: number) => {
      // A client that closes normally has logged out; anything else is a drop that may reconnect.
      const leaveCode = code === 1000 ? CloseCode.CONSENTED : code;
      client.ref.emit("close", leaveCode);
      trades.close(leaveCode);
      greeting.resolve();
    };
    // Taken over in one step: no frame goes unheard between the two listeners.
    ws.on("message", onMessage);
    early = held.release();
    // The world is left as at a logout; the next one has it let the player go, saved, as it arrives.
    const leave = () => {
      ws.off("close", onClose);
      const carried = holdFrames(ws, this.runtime.config.RATE_LIMIT_WS_PER_SEC, early);
      ws.off("message", onMessage);
      client.ref.emit("close", CloseCode.CONSENTED);
      trades.close(CloseCode.CONSENTED);
      greeting.resolve();
      const { characterId: playing } = client.auth as PlayerAuth;
      // Relayed here, the hop goes back to the process holding the connection, which holds what follows.
      if (connection.relayed) {
        carried.release();
        handBackHop(ws, hopTo!, playing);
        return;
      }
      this.hop(connection, hopTo!, playing, carried).catch((error: unknown) => this.joinFailed(ws, error));
    };
    await connectClientToRoom(room, client as never, context, {});
    await client.joined();
    closeNow = close;
    if (closedEarly !== undefined) return close(closedEarly);
    await greeting.promise;
    if (hopTo !== undefined || ws.readyState !== WebSocket.OPEN) return;
    ready = true;
    for (const frame of early.splice(0)) this.handleFrame(room, client, trades, frame.data, frame.isBinary);
  }

  /**
   * Moves an open connection into world `world` as its character: joined here when the world runs in
   * this process, or relayed to the process it runs on (see relayOpen), with the frames held meanwhile.
   */
  private async hop(
    connection: Connection,
    world: number,
    characterId: string,
    held: HeldFrames,
  ): Promise<void> {
    const { ws, context } = connection;
    const listing = await openWorld(world);
    // Gone while the world was looked up: it has left the last world, and joins no other.
    if (ws.readyState !== WebSocket.OPEN) return;
    if (listing.processId === matchMaker.processId) {
      await this.open(connection, listing.roomId, world, characterId, held);
      return;
    }
    const target = this.relayTarget(listing, world, characterId, context, undefined);
    if (!target) {
      sendFrame(ws, "error", { code: "unavailable", message: WORLD_UNREACHABLE_MESSAGE });
      ws.close(CLOSE_UNAVAILABLE, "unavailable");
      return;
    }
    // The relay listens from here on, in this same step.
    relayOpen(ws, target, held.release(), {
      maxBufferedBytes: MAX_UNREAD_BYTES,
      pingMs: this.runtime.config.WS_PING_MS,
      holdLimit: this.runtime.config.RATE_LIMIT_WS_PER_SEC,
      onHop: (_, hop) => this.hopHere(connection, hop),
      onUnreachable: (error) => {
        this.runtime.logger.warn({ err: error, world }, "/ws relay to the world hopped to failed");
        void matchMaker.healthCheckProcessId(listing.processId);
      },
    });
  }

  /** Carries out a hop that the world's process this connection was relayed to handed back. */
  private hopHere(connection: Connection, { world, characterId, held }: RelayedHop): void {
    const holding = holdFrames(connection.ws, this.runtime.config.RATE_LIMIT_WS_PER_SEC, held);
    this.hop(connection, world, characterId, holding).catch((error: unknown) =>
      this.joinFailed(connection.ws, error),
    );
  }

  /** Tells a client whose join failed why, and closes its connection. */
  private joinFailed(ws: WebSocket, error: unknown): void {
    // A ServerError is meant for the client (no such character, the world closed); anything else is
    // the server's own failure, whose message (a query, an address) is not the client's business.
    const told = error instanceof ServerError;
    this.runtime.logger[told ? "warn" : "error"]({ err: error }, "/ws join failed");
    const message = told ? error.message : INTERNAL_JOIN_FAILURE;
    if (error instanceof WorldFullError) {
      sendFrame(ws, "error", { code: "world_full", message });
      ws.close(CLOSE_UNAVAILABLE, "world full");
      return;
    }
    // A 503 (the database unavailable, the world closing) passes: the client is told to come back.
    if (told && error.code === 503) {
      sendFrame(ws, "error", { code: "unavailable", message });
      ws.close(CLOSE_UNAVAILABLE, "unavailable");
      return;
    }
    sendFrame(ws, "error", { code: "join_failed", message });
    ws.close(CloseCode.WITH_ERROR, "join failed");
  }

  private handleFrame(
    room: WorldRoom,
    client: JsonClient,
    trades: TradeLink,
    data: RawData,
    isBinary: boolean,
  ): void {
    // The frame over the limit is read after all, so that its refusal is its reply, with its event and id.
    const refuse = (error: Refusal) => {
      const { event, id } = readEnvelope(data, isBinary);
      client.sendJson("error", { ...error, event: event ?? null }, id);
    };
    // Counted with the player's other connections: reconnecting neither resets the count nor lifts a block.
    const { characterId } = client.auth as PlayerAuth;
    if (!admitMessage(this.runtime.floodGuards.of(characterId), client, refuse)) return;
    const envelope = readEnvelope(data, isBinary);
    if ("code" in envelope) {
      const { id, ...error } = envelope;
      client.sendJson("error", error, id);
      return;
    }
    // Whatever the frame causes for this player is sent through `reply`, which echoes the frame's `id`.
    const reply = (event: string, payload: unknown) => client.sendJson(event, payload, envelope.id);
    if (isTradeMessage(envelope.event)) trades.forward(envelope.event, envelope.data, reply);
    else room.handleMessage(client as never, envelope.event, envelope.data, reply);
  }

  private pingAll(): void {
    for (const ws of this.wss.clients) {
      if (!this.alive.has(ws)) {
        ws.terminate();
        continue;
      }
      this.alive.delete(ws);
      ws.ping();
    }
  }
}

function sendFrame(ws: WebSocket, event: string, data: unknown): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ event, data }));
}
