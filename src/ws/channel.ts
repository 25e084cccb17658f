import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type AuthContext, CloseCode, createAuthContext, type IRoomCache, matchMaker } from "@colyseus/core";
import { WebSocket, WebSocketServer } from "ws";
import { MAX_UNREAD_BYTES } from "../net/slow-reader.js";
import type { Runtime } from "../ports/runtime.js";
import { CLOSE_UNAVAILABLE } from "../protocol/close-codes.js";
import { ListingsUnreachableError } from "../protocol/listings-unreachable.js";
import { MAX_READ_BYTES } from "../protocol/messages.js";
import { WORLD_UNREACHABLE_MESSAGE } from "../rooms/live-world.js";
import { identityOf } from "../rooms/room-auth.js";
import { chooseWorld, unknownWorld, worldParameter } from "../rooms/world-choice.js";
import { worldHoldingSeat } from "../rooms/world-claims.js";
import { openWorld } from "../rooms/world-listing.js";
import { LoopStalls, type StallMark } from "../tuning/loop-stalls.js";
import { type HeldFrames, holdFrames } from "./held-frames.js";
import { closeOnJoinFailure, closeWithError } from "./join-failures.js";
import { type RelayTarget, relay, relayOpen } from "./relay.js";
import { type RelayPass, relayPass, relayTarget } from "./relay-pass.js";
import type { RelayedHop } from "./relayed-hops.js";
import { UpgradeAdmission } from "./upgrade-admission.js";
import { LOGIN_TOO_OLD, refuse, WORLD_UNREACHABLE } from "./upgrade-refusals.js";
import { type Connection, type Hop, joinWorld } from "./world-join.js";

/**
 * The interface's JSON channel: a plain WebSocket at /ws whose frames are `{event, data, id?}`. Each connection is
 * joined to its world's room here (see joinWorld) or relayed to the process that runs the world.
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
      this.join(connection, world.roomId, choice.world, characterId, held);
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

  /**
   * Where a world's process is relayed to (see relayTarget); undefined when it cannot be: it has no public
   * address, or relaying would come back here. A connection is relayed once at most: one relayed here
   * for a world that runs elsewhere (its listing moved meanwhile, or processes share an address) is
   * refused, to be retried, rather than passed on again, and on again.
   */
  private relayTarget(
    { publicAddress }: IRoomCache,
    worldId: number,
    characterId: string | null | undefined,
    context: AuthContext,
    request: IncomingMessage | undefined,
  ): RelayTarget | undefined {
    const { logger, config } = this.runtime;
    if (!publicAddress) {
      logger.error("the world runs on a process without PUBLIC_ADDRESS: /ws cannot reach it");
      return undefined;
    }
    if (publicAddress === config.PUBLIC_ADDRESS) {
      logger.error(
        { world: worldId, publicAddress },
        `world ${worldId} runs on another process listed at this process's own PUBLIC_ADDRESS (${publicAddress}): each process needs an address of its own (under pm2, put {port} in PUBLIC_ADDRESS)`,
      );
      return undefined;
    }
    if (request && this.relayPass.shownBy(request)) {
      logger.warn(
        { world: worldId, publicAddress },
        `a /ws connection relayed here for world ${worldId}, which runs on another process: refused, not relayed again`,
      );
      return undefined;
    }
    return relayTarget(this.relayPass, config.PUBLIC_WS_URL, publicAddress, {
      worldId,
      characterId,
      context,
      request,
    });
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
   * Moves an open connection into world `world` as its character: joined here when the world runs in
   * this process, or relayed to the process it runs on (see relayOpen), with the frames held meanwhile.
   */
  private readonly hop: Hop = (connection, world, characterId, held) =>
    this.moveToWorld(connection, world, characterId, held).catch((error: unknown) =>
      this.joinFailed(connection.ws, error),
    );

  private async moveToWorld(
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
      this.join(connection, listing.roomId, world, characterId, held);
      return;
    }
    const target = this.relayTarget(listing, world, characterId, context, undefined);
    if (!target) return closeWithError(ws, "unavailable", WORLD_UNREACHABLE_MESSAGE, CLOSE_UNAVAILABLE);
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

  /** Joins a connection to a world of this process; a failure is told to the client, which is closed. */
  private join(
    connection: Connection,
    roomId: string,
    world: number,
    characterId: string | undefined,
    held: HeldFrames,
  ): void {
    joinWorld(this.runtime, connection, roomId, world, characterId, held, this.hop).catch((error: unknown) =>
      this.joinFailed(connection.ws, error),
    );
  }

  /** Carries out a hop that the world's process this connection was relayed to handed back. */
  private hopHere(connection: Connection, { world, characterId, held }: RelayedHop): void {
    this.hop(
      connection,
      world,
      characterId,
      holdFrames(connection.ws, this.runtime.config.RATE_LIMIT_WS_PER_SEC, held),
    );
  }

  private joinFailed(ws: WebSocket, error: unknown): void {
    closeOnJoinFailure(ws, error, this.runtime.logger);
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
