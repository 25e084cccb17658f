import { performance } from "node:perf_hooks";
import {
  type AuthContext,
  type Client,
  ClientState,
  CloseCode,
  Deferred,
  matchMaker,
  Room,
  type Serializer,
  ServerError,
} from "@colyseus/core";
import { type AgentReply, type AgentRequest, answerAgentRequest } from "../agents/requests.js";
import { sightingIntervalMs } from "../auth/sightings.js";
import { countAttempt } from "../auth/verify.js";
import { type TradeParticipant, TradeRepository } from "../db/trades.js";
import { WorldLease } from "../db/world-lease.js";
import { parseChat, SERVER_SPEAKER } from "../game/chat.js";
import { type GameError, isGameError } from "../game/errors.js";
import { seededRandom } from "../game/random.js";
import type { Trade, TradeErrorReason } from "../game/trade.js";
import { TRADE_ERROR_MESSAGES } from "../game/trade.js";
import type { InventoryEntry } from "../game/types.js";
import { World } from "../game/world.js";
import type { Intent, OutboundEvent, PlayerSync, TickReport } from "../game/world-types.js";
import { ChatRates, chatRateRefusal } from "../limits/chat-rate.js";
import { admitMessage } from "../limits/flood-guard.js";
import { clientKey } from "../limits/rate-limits.js";
import { within } from "../limits/time-limit.js";
import type { FrameWrites } from "../net/frame-writes.js";
import type { PatchScopes } from "../net/patch-scopes.js";
import { NOT_DURABLE_YET } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";
import type { PlayerAuth } from "../ports/world-seats.js";
import { CLOSE_REPLACED } from "../protocol/close-codes.js";
import type { EncodedUpdate } from "../protocol/encoded-json.js";
import {
  describeIssues,
  eventLabel,
  isTradeMessage,
  isWorldMessage,
  type Refusal,
  type Reply,
  readWorldMessage,
  sdkEventName,
  toIntent,
  type WorldJoinOptions,
  worldJoinOptions,
} from "../protocol/messages.js";
import { WorldRoomState } from "../schema/WorldRoomState.js";
import { countMessageIn, countMessagesOut, countRefusal, reportPlayersOnline } from "../telemetry/metrics.js";
import { CombatLogouts } from "./combat-logouts.js";
import { markFramesOf } from "./frame-sender.js";
import { HeldMessages } from "./held-messages.js";
import { Interest, isJsonClient, readsTheState } from "./interest.js";
import { deliverEvents } from "./outgoing-events.js";
import { authenticatePlayer, databaseUnavailable, toldSafely } from "./room-auth.js";
import { countSelfAnsweredFrames } from "./self-answered-frames.js";
import { signTrade, type TradeRoom, type TradeRoomOptions } from "./TradeRoom.js";
import { collectTickGarbage } from "./tick-garbage.js";
import { TickSaves } from "./tick-saves.js";
import { TickTimings } from "./tick-timings.js";
import { type TradeCommitOutcome, TradeCommits } from "./trade-commits.js";
import { WorldPersistence } from "./world-persistence.js";
import { TradeRequests } from "./world-trades.js";

/**
 * How often the world checks that no other world replaced it, besides each write: as often as a process
 * that was taken for dead and comes back lists its rooms again (Colyseus's swept check, 5 s).
 */
const LEASE_CHECK_MS = 5000;
/** The refusal of messages while the world waits for its database (see waitForDatabase). */
const WAITING_FOR_DATABASE: Refusal = {
  code: "unavailable",
  message: "The world is waiting for its database; try again shortly.",
};
/**
 * How long a REST read of a player waits for its state to be durable (see livePlayer): within the 2 s that
 * Colyseus lets a call to a room on another process take.
 */
const LIVE_READ_WAIT_MS = 1500;
/** How long a login waits for the write of its character's last session (see lastSessionSaved). */
const LAST_SESSION_WAIT_MS = 10_000;

interface Session {
  isAdmin: boolean;
  /** Set while the seat of a dropped client is kept; rejecting it ends the wait. */
  reconnection?: Deferred<Client>;
}

type WorldClient = Client<{ auth: PlayerAuth; userData: Session }>;

/**
 * The world: one authoritative 600 ms tick over the game rules of src/game. Handlers only validate
 * and queue; the tick applies intents, then the room projects the changes into the replicated state,
 * persists them, and only then delivers the tick's events (so a bank acknowledgement follows its commit).
 */
export class WorldRoom extends Room<{ state: WorldRoomState; client: WorldClient }> {
  /** Set by `defineWorldRoom`: the server's runtime. */
  protected runtime!: Runtime;
  override autoDispose = false;
  override state = new WorldRoomState();
  /**
   * What each SDK client's update listed, which its state patch is encoded from (see PatchScopes); none
   * on the stream write path. Made on first use: the state is set before the runtime's outbox is known.
   */
  private scopesMade: { scopes: PatchScopes | undefined } | undefined;

  private world!: World;
  private interest!: Interest;
  private persistence!: WorldPersistence;
  private saves!: TickSaves;
  private trades!: TradeRequests;
  private combatLogouts!: CombatLogouts;
  private tradeCommits!: TradeCommits;
  private timings!: TickTimings;
  private stopReportingOnline = () => {};
  /** This opening's right to write (see WorldLease); the agents beside it write under it too. */
  private lease!: WorldLease;
  /** Set when a write found that another world holds the lease: the room is closing. */
  private superseded = false;
  /** The client currently playing each character. */
  private readonly owners = new Map<string, WorldClient>();
  /** Characters being loaded for a login: a second login meanwhile waits for the same load. */
  private readonly arrivals = new Map<string, Promise<void>>();
  /** A tick's write is running: the next tick waits for it. */
  private writing = false;
  /** The last publication's socket writes, done once its frames are handed to the kernel. */
  private framesOut: Promise<void> = Promise.resolve();
  /**
   * What waits for the next write to commit, oldest first: the publications of ticks whose write failed,
   * and what was to be sent meanwhile (see waitForDatabase, whenPublished).
   */
  private readonly unpublished: (() => void)[] = [];
  /** What was to be sent while a tick's write ran: sent after that tick's publication (see whenPublished). */
  private readonly afterWrite: (() => void)[] = [];
  /** Clients sent their player:sync (see greet). */
  private readonly greeted = new WeakSet<WorldClient>();
  /**
   * How to answer the messages whose intents wait for the next tick, by the reference they were
   * submitted with: a refusal the tick finds (no path to the tile) answers its message, with its id.
   */
  private readonly waitingReplies = new Map<number, { reply: Reply; event: string; client: WorldClient }>();
  private nextReplyRef = 0;
  /** Stops this world's reports to /health, and its answers to logins the database cannot answer. */
  private stopServing = () => {};
  /** Each player's chat rate (see ChatRates). */
  private chatRates!: ChatRates;
  private readonly heldBehindAdmin = new HeldMessages<WorldClient>((error) =>
    this.runtime.logger.error({ err: error }, "an /admin attempt failed"),
  );

  override async onCreate(): Promise<void> {
    const { runtime } = this;
    this.world = new World({
      data: runtime.gameData,
      random: seededRandom(runtime.config.WORLD_SEED ?? Date.now()),
      now: () => performance.now(),
      wallClock: () => Date.now(),
    });
    // Claimed before anything is loaded: the world this one replaces can write nothing from now on.
    this.lease = await WorldLease.claim(runtime.database.worldDb);
    // What lay on the ground when the world last stopped lies there again.
    this.world.restoreGroundItems(await runtime.worldStore.loadGround(this.world.tick));
    this.interest = new Interest(this.world, this.state, this.patchScopes(), runtime.config.VIEW_MAX_PLAYERS);
    this.saves = new TickSaves(this.world);
    this.combatLogouts = new CombatLogouts(this.world);
    this.persistence = new WorldPersistence(runtime.worldStore, this.saves, runtime.logger, {
      fence: this.lease,
      onSuperseded: (error) => this.closeSuperseded(error),
      // Whichever write commits (a tick's, a departure's, a trade's catch-up), what it made durable goes out.
      onWritten: () => this.publishUnpublished(),
    });
    const stopHealthReports = runtime.worldHealth.report(() => this.persistence.databaseState());
    const stopSeats = runtime.worldSeats.serve((subject, characterId) => this.seatOf(subject, characterId));
    this.stopServing = () => {
      stopHealthReports();
      stopSeats();
    };
    // A replaced world that writes nothing (no one acts in it) still finds out, and closes.
    this.clock.setInterval(() => {
      this.persistence.checkFence().catch(() => {});
    }, LEASE_CHECK_MS);
    // A player in the world is seen for as long as it stays (its agents are kept: see Sightings).
    this.clock.setInterval(
      () => void runtime.sightings.seen(this.clients.map((client) => playerOf(client).accountId)),
      sightingIntervalMs(runtime.config.AGENT_OWNER_ABSENCE_SECONDS),
    );
    this.trades = new TradeRequests({
      // A dropped client keeps its seat for a while, but nothing sent to it arrives: it is not online.
      isOnline: (id) => {
        const client = this.owners.get(id);
        return client !== undefined && client.state !== ClientState.LEAVING && this.world.has(id);
      },
      nameOf: (id) => this.world.peek(id).name,
      distance: (a, b) => this.world.distance(a, b),
      send: (id, event, data) => this.sendTo(id, event, data),
      openTradeRoom: (trade) => this.openTradeRoom(trade),
      cancelStarted: (tradeId, playerId, reason) => {
        matchMaker.remoteRoomCall<TradeRoom>(tradeId, "cancelFor", [playerId, reason]).catch(() => {});
      },
    });
    this.tradeCommits = new TradeCommits(
      {
        world: this.world,
        isPlaying: (id) => this.owners.has(id) && this.world.has(id),
        waitsForDatabase: () => this.waitsForDatabase,
        tooFar: (a, b) => this.trades.tooFar(a, b),
        tick: () => this.tick(),
      },
      {
        repository: new TradeRepository(runtime.database.worldDb),
        persistence: this.persistence,
        saves: this.saves,
        items: runtime.gameData.items,
        lease: this.lease,
        logger: runtime.logger,
      },
    );
    this.chatRates = new ChatRates(runtime.config.RATE_LIMIT_CHAT_PER_SEC);
    const tickMs = runtime.config.WORLD_TICK_MS;
    // Half the tick: beyond that, a tick leaves too little time for I/O and a slow phase is reported.
    this.timings = new TickTimings(tickMs / 2, runtime.logger);
    this.setSimulationInterval(() => this.tick(), tickMs);
    this.stopReportingOnline = reportPlayersOnline(() => this.owners.size);
    // No patches on a timer of their own: each tick's publish sends its patch (see publish).
    this.patchRate = null;
    this.onMessage("*", (client, type, message) =>
      this.handleMessage(client as WorldClient, sdkEventName(type), message),
    );
    runtime.logger.info(
      { roomId: this.roomId, epoch: this.lease.epoch, groundItems: this.world.counts().items },
      `world opened in this process (lease epoch ${this.lease.epoch})`,
    );
  }

  /** Setting the state makes a SchemaSerializer: on the thread write path it encodes each SDK client's patch from its scope. */
  override setSerializer(serializer: Serializer<WorldRoomState>): void {
    super.setSerializer(this.runtime.outbox.serializer(serializer, this.patchScopes()));
  }

  private patchScopes(): PatchScopes | undefined {
    this.scopesMade ??= { scopes: this.runtime.outbox.patchScopes() };
    return this.scopesMade.scopes;
  }

  override onJoin(client: WorldClient, options: WorldJoinOptions | undefined): Promise<void> {
    return toldSafely(this.runtime, () => this.join(client, options));
  }

  private async join(client: WorldClient, options: WorldJoinOptions | undefined): Promise<void> {
    const { characterId } = playerOf(client);
    this.countFramesOf(client);
    client.userData = { isAdmin: false };
    const previous = this.owners.get(characterId);
    this.owners.set(characterId, client);
    if (previous) {
      // A character is in the world once: the newer login takes over the same player, and is the only
      // one sent its surroundings from now on.
      this.interest.close(previous);
      // The replaced session has logged out: its trade ends, or its own connection to the trade's room
      // (an SDK client's is apart from the world's) could finish it behind the new session's back.
      this.trades.playerGone(characterId, "partner_disconnected");
      previous.userData?.reconnection?.reject(new Error("replaced by a new login"));
      previous.leave(CLOSE_REPLACED, "logged in elsewhere");
    }
    // A player still in the world (its old session leaving or just replaced) is simply taken over, its
    // prayers off as at every login: kept on, they would drain points the new session never switched on.
    if (this.world.has(characterId)) this.world.prayersOff(characterId);
    else {
      await this.arrival(characterId);
      if (this.owners.get(characterId) !== client) return;
    }
    this.runtime.logger.info(
      { characterId, name: playerOf(client).characterName, client: this.clientKind(client) },
      `${playerOf(client).characterName} joined the world (${this.clientKind(client)})`,
    );
    // A client that reads the state needs its view now: Colyseus sends it the state as it joins. Others
    // open theirs with the player:sync they are sent first (CONTRACT), after any tick held meanwhile.
    const readsState = readsTheState(client, options?.updates);
    if (readsState) this.interest.open(client, characterId, options?.updates);
    this.whenPublished(() => {
      // The session may have reconnected meanwhile, as a new client object.
      const current = this.owners.get(characterId);
      if (current?.sessionId !== client.sessionId) return;
      if (!readsState) this.interest.open(current, characterId, options?.updates);
      this.greet(current, characterId);
      this.sendView(current);
    });
  }

  /**
   * Loads a character into the world for the logins waiting for it. A new session starts from the state
   * its previous session saved, so it waits for that save first. A character that no session wants any
   * more by then stays out.
   */
  private arrival(characterId: string): Promise<void> {
    let arrival = this.arrivals.get(characterId);
    if (!arrival) {
      arrival = (async () => {
        await this.lastSessionSaved(characterId);
        const character = await this.runtime.characters.load(characterId).catch((error: unknown) => {
          throw databaseUnavailable(this.runtime, error);
        });
        if (!character) throw new Error(`character ${characterId} vanished`);
        if (this.owners.has(characterId) && !this.world.has(characterId)) this.world.join(character);
      })().finally(() => this.arrivals.delete(characterId));
      this.arrivals.set(characterId, arrival);
    }
    return arrival;
  }

  /**
   * Waits for the write of the character's last session (its departure). While the database refuses
   * it the login is refused too: loaded from what is stored, the character would have its items twice
   * or not at all.
   */
  private async lastSessionSaved(characterId: string): Promise<void> {
    const saved = this.persistence.settled(characterId).then(() => false);
    if (!(await within(saved, LAST_SESSION_WAIT_MS, true))) return;
    this.runtime.logger.warn(
      { characterId },
      "a login waited too long for its last session's write: refused",
    );
    throw new ServerError(503, "this character's last session is not saved yet; try again shortly");
  }

  override onDrop(client: WorldClient): void {
    if (this.owners.get(playerOf(client).characterId) !== client) return;
    // A dropped connection ends the player's trades at once, even while the seat is kept.
    this.trades.playerGone(playerOf(client).characterId, "partner_disconnected");
    const reconnection = this.allowReconnection(client, this.runtime.config.RECONNECT_SECONDS);
    if (client.userData) client.userData.reconnection = reconnection;
    reconnection.catch(() => {});
  }

  override onReconnect(client: WorldClient): void {
    if (client.userData) client.userData.reconnection = undefined;
    this.countFramesOf(client);
    const { characterId } = playerOf(client);
    // The reconnected session is a new client object for the same session: it plays from now on.
    if (this.owners.get(characterId)?.sessionId === client.sessionId) this.owners.set(characterId, client);
    // Colyseus hands it the previous StateView, which the full state is encoded with once this returns:
    // the view is brought up to date first, so that the state shows nothing that left it meanwhile. A
    // client that reads world:update is sent its view whole again.
    this.interest.reattach(client);
    this.whenPublished(() => {
      if (this.owners.get(characterId) !== client || !this.world.has(characterId)) return;
      this.greet(client, characterId);
      this.sendView(client);
    });
  }

  override async onLeave(client: WorldClient): Promise<void> {
    this.interest.close(client);
    const { characterId } = playerOf(client);
    if (this.owners.get(characterId) !== client) return;
    this.owners.delete(characterId);
    this.runtime.logger.info(
      { characterId, name: playerOf(client).characterName, client: this.clientKind(client) },
      `${playerOf(client).characterName} left the world (${this.clientKind(client)})`,
    );
    this.trades.playerGone(characterId, "partner_disconnected");
    await this.tradeCommits.settled(characterId);
    // The client goes now, its player once its fight is over: a client waiting for its leave to be
    // answered (an SDK's room.leave(), an agent stopped by DELETE or a shutdown) does not wait a minute.
    const kept = this.combatLogouts.keep(characterId, () => void this.depart(characterId));
    if (!kept) await this.depart(characterId);
  }

  /** Takes a player whose session ended out of the world, unless a new session took it over meanwhile. */
  private async depart(characterId: string): Promise<void> {
    if (!this.world.has(characterId) || this.owners.has(characterId) || this.superseded) return;
    // A failed write is logged, and the departure goes with the writes that follow until one commits;
    // the seat is let go all the same.
    await this.persistence.writeFinal([{ state: this.world.leave(characterId) }]).catch(() => {});
  }

  /** Trades end with `server_shutdown` (not as if each player had dropped), then everyone is let go. */
  override onBeforeShutdown(): void {
    this.trades.shutdown();
    this.combatLogouts.releaseAll();
    super.onBeforeShutdown();
  }

  /**
   * Another world opened (this process was taken for dead): this one can save nothing, so it closes.
   * Its players come back to the new world with what was saved last; what this world did since is not
   * kept, as after a crash, and nothing is saved twice.
   */
  private closeSuperseded(error: Error): void {
    this.runtime.logger.error(
      { err: error, epoch: this.lease.epoch },
      "another world opened while this one ran: closing it without saving",
    );
    this.superseded = true;
    this.combatLogouts.releaseAll();
    this.disconnect(CloseCode.SERVER_SHUTDOWN).catch(() => {});
  }

  override async onDispose(): Promise<void> {
    this.stopServing();
    this.stopReportingOnline();
    this.runtime.logger.info(
      { roomId: this.roomId, epoch: this.lease.epoch },
      "world closed in this process",
    );
    if (this.superseded) return;
    const remaining = [...this.owners.keys()].filter((id) => this.world.has(id));
    this.persistence.writeFinal(remaining.map((id) => ({ state: this.world.leave(id) }))).catch(() => {});
    await this.persistence.flush();
  }

  /** How a player's client connects, for the log: the /ws channel, an SDK client, or one of the server's agents. */
  private clientKind(client: WorldClient): "/ws" | "SDK" | "agent" {
    if (isJsonClient(client)) return "/ws";
    const { characterId } = playerOf(client);
    return this.runtime.agents.list().some((agent) => agent.record.characterId === characterId)
      ? "agent"
      : "SDK";
  }

  /** An SDK connection's frames that reach no handler count too; the /ws channel counts its own frames. */
  private countFramesOf(client: WorldClient): void {
    if (isJsonClient(client)) return;
    const { characterId } = playerOf(client);
    countSelfAnsweredFrames(client, () => this.runtime.floodGuards.of(characterId));
    markFramesOf(client, { sessionId: client.sessionId, characterId });
  }

  /** The one entry point of client messages, for SDK clients and /ws clients alike. */
  handleMessage(
    client: WorldClient,
    type: string,
    message: unknown,
    reply: Reply = client.send.bind(client),
  ): void {
    if (!client.userData) return;
    const { characterId } = playerOf(client);
    // A session a second login replaced may still have frames on the way: the player is the new one's.
    if (this.owners.get(characterId) !== client || !this.world.has(characterId)) return;
    countMessageIn(eventLabel(type));
    const refuse = (refusal: Refusal) => {
      countRefusal(refusal.code);
      reply("error", { ...refusal, event: type });
    };
    // The /ws channel counts its connections' frames itself, before they get here.
    const counted =
      isJsonClient(client) || admitMessage(this.runtime.floodGuards.of(characterId), client, refuse);
    if (!counted) return;
    this.heldBehindAdmin.handle(client, () => {
      // A held message may find its session replaced or gone by now.
      if (this.owners.get(characterId) !== client || !this.world.has(characterId)) return;
      const refusal = this.waitsForDatabase
        ? WAITING_FOR_DATABASE
        : this.dispatch(client, type, message, reply);
      if (refusal) refuse(refusal);
    });
  }

  /** Validates a message and hands it to the world or the trade requests; returns why it is refused. */
  private dispatch(
    client: WorldClient,
    type: string,
    message: unknown,
    reply: Reply,
  ): GameError | Refusal | undefined {
    if (isTradeMessage(type) && !isWorldMessage(type))
      return { code: "wrong_room", message: "Send trade offers to the trade's room." };
    const event = readWorldMessage(type, message);
    if ("error" in event) return event.error;
    const playerId = playerOf(client).characterId;
    const tradeRefusal = (tradeId: string | undefined) => (reason: TradeErrorReason | undefined) => {
      if (!reason) return;
      countRefusal(reason);
      reply("tradeError", { tradeId, reason, message: TRADE_ERROR_MESSAGES[reason] });
    };
    if (event.type === "tradeRequest") {
      const { targetPlayerId } = event.data;
      tradeRefusal(undefined)(this.trades.request(playerId, targetPlayerId, Date.now(), reply));
      return undefined;
    }
    if (event.type === "tradeCancel") {
      const { tradeId } = event.data;
      tradeRefusal(tradeId)(this.trades.cancel(playerId, tradeId, Date.now(), reply));
      return undefined;
    }
    if (event.type === "tradeRequestRespond") {
      const { tradeId, accept } = event.data;
      this.trades
        .respond(playerId, tradeId, accept, Date.now(), reply)
        .then(tradeRefusal(tradeId), (error: unknown) => {
          this.runtime.logger.error({ err: error, tradeId }, "opening a trade failed");
          tradeRefusal(tradeId)("commit_failed");
        });
      return undefined;
    }
    const intent =
      event.type === "player:chat" ? this.chatIntent(client, event.data, reply) : toIntent(event);
    if (intent && !("type" in intent)) return intent;
    if (!intent) return undefined;
    const ref = this.nextReplyRef++;
    const refusal = this.world.submit(playerId, intent, ref);
    if (!refusal) this.waitingReplies.set(ref, { reply, event: type, client });
    return refusal;
  }

  /**
   * Chat text as an intent, the admin command it carries when the session may run it, or why not;
   * undefined for `/admin <code>`, which answers by itself once the attempt is counted.
   */
  private chatIntent(
    client: WorldClient,
    { message }: { message: string },
    reply: Reply,
  ): Intent | Refusal | undefined {
    const parsed = parseChat(message);
    if (isGameError(parsed)) return parsed;
    switch (parsed.kind) {
      case "say":
        if (!this.chatRates.admit(playerOf(client).characterId))
          return chatRateRefusal(this.chatRates.perSecond);
        return { type: "chat", message: parsed.text };
      case "admin":
        this.heldBehindAdmin.holdUntil(client, this.elevate(client, parsed.code, reply));
        return undefined;
      default:
        if (!client.userData?.isAdmin)
          return { code: "forbidden", message: "Admin commands need /admin <code> first." };
        if (parsed.kind === "give") return { type: "give", itemId: parsed.itemId, quantity: parsed.quantity };
        if (parsed.kind === "teleport") return { type: "teleport", x: parsed.x, z: parsed.z };
        return { type: "heal" };
    }
  }

  /**
   * `/admin <code>`: every attempt counts against the client's authentication limit, as a token would.
   * The right code makes the session, and the account, an admin's. Either answer is the reply to the
   * `/admin` line, with its `id`.
   */
  private async elevate(client: WorldClient, code: string, reply: Reply): Promise<void> {
    const { ADMIN_CODE } = this.runtime.config;
    const fail = (refusal: Refusal) => reply("error", { ...refusal, event: "player:chat" });
    if (await countAttempt(this.runtime, clientKey(playerOf(client).ip)))
      fail({ code: "rate_limited", message: "Too many attempts: try again later." });
    else if (!ADMIN_CODE) fail({ code: "forbidden", message: "Admin commands are disabled on this server." });
    else if (code !== ADMIN_CODE) fail({ code: "forbidden", message: "Wrong admin code." });
    else {
      if (client.userData) client.userData.isAdmin = true;
      // The account stays an admin's: the REST API lets it control the server's own agents.
      await this.runtime.accounts.setAdmin(playerOf(client).accountId, true);
      reply("chat:message", {
        fromPlayerId: SERVER_SPEAKER.id,
        fromPlayerName: SERVER_SPEAKER.name,
        message: "Admin commands enabled.",
        timestamp: Date.now(),
      });
    }
  }

  /**
   * One tick: the world's phases (input, npcs, players, combat, skills, items), then the room's own:
   * project (into the replicated state), persist (note the tick's changes, queue a write), commit (wait
   * for it) and publish (events and views). Each phase is timed.
   */
  private tick(): void {
    if (this.superseded) return;
    if (this.tradeCommits.holdsTick()) return;
    // A slow database slows the world: no tick steps ahead of what the last one is still writing.
    if (this.writing) return;
    if (this.waitsForDatabase) {
      this.waitForDatabase();
      return;
    }
    const repliesApplied = this.nextReplyRef;
    const report = this.world.step();
    const changed = new Set(report.changedEntities);
    const phaseMs: Record<string, number> = { ...report.phaseMs };
    const timed = (phase: string, work: () => void) => {
      const started = performance.now();
      work();
      phaseMs[phase] = performance.now() - started;
    };
    timed("project", () => {
      this.interest.applyTick(report, changed);
      for (const id of report.deaths) this.trades.playerGone(id, "player_died");
      this.combatLogouts.afterTick();
      this.trades.expire(Date.now());
    });
    let saved: Promise<void> = Promise.resolve();
    timed("persist", () => {
      this.saves.note(report);
      saved = this.writeWorld();
    });
    const waitStarted = performance.now();
    const publication = () => {
      phaseMs.commit = performance.now() - waitStarted;
      let writes: FrameWrites | undefined;
      timed("publish", () => {
        writes = this.publish(report);
      });
      try {
        this.timings.record(report.tick, phaseMs);
      } finally {
        // Handed over once the tick's work is done: on one core the writer thread takes the core from
        // here. The young generation is emptied once the frames are out: the players wait for those.
        if (writes) {
          this.framesOut = writes.send();
          void this.framesOut.then(collectTickGarbage);
        }
      }
      // Later messages wait for the next tick; these were applied by this one, and answered if refused.
      for (const ref of this.waitingReplies.keys()) {
        if (ref >= repliesApplied) break;
        this.waitingReplies.delete(ref);
      }
    };
    // Events go out once this tick's changes are durable; a world that may not write publishes nothing.
    saved.then(
      () => {
        publication();
        for (const send of this.afterWrite.splice(0)) send();
      },
      () => {
        if (!this.superseded) this.unpublished.push(publication, ...this.afterWrite.splice(0));
      },
    );
  }

  /**
   * While ticks' writes fail, the world waits for its database: each tick tries the write again instead
   * of stepping, and once one commits the ticks it held go out in order. So nothing a player is told
   * (a deposit acknowledged, loot received) can be undone by a crash, and nothing happens unseen.
   */
  private get waitsForDatabase(): boolean {
    return this.unpublished.length > 0;
  }

  /** The tick's one attempt, while the world waits, at the write it waits for. */
  private waitForDatabase(): void {
    this.writeWorld().catch(() => {});
  }

  /**
   * Sends what shows the world's current state to one client (a login, a reconnection) once that state
   * is durable: at once, after the publication of the tick whose write is running, or, while the world
   * waits for its database, after the held ticks once a write commits.
   */
  private whenPublished(send: () => void): void {
    if (this.waitsForDatabase) this.unpublished.push(send);
    else if (this.writing) this.afterWrite.push(send);
    else send();
  }

  /**
   * Takes back what `whenPublished` was given and has not run yet: a wait that gave up leaves nothing
   * behind for as long as the database is down. The held ticks' publications stay, and the world waits.
   */
  private withdrawPublication(send: () => void): void {
    for (const waiting of [this.unpublished, this.afterWrite]) {
      const index = waiting.indexOf(send);
      if (index >= 0) waiting.splice(index, 1);
    }
  }

  /** Sends a player's client an event of its own: after its player:sync if that is still to come. */
  private sendTo(playerId: string, event: string, data: unknown): void {
    const client = this.owners.get(playerId);
    if (!client) return;
    if (this.greeted.has(client)) client.send(event, data);
    else this.whenPublished(() => this.owners.get(playerId)?.send(event, data));
  }

  /**
   * Sends a client its player:sync, the first thing it is sent: until then it is sent none of the
   * events around it (see publish), which the sync's state already shows.
   */
  private greet(client: WorldClient, characterId: string): void {
    client.send("player:sync", this.world.playerSync(characterId));
    countMessagesOut("player:sync");
    this.greeted.add(client);
  }

  /** The ticks' write (see tick), noted while it runs. */
  private writeWorld(): Promise<void> {
    this.writing = true;
    const written = this.persistence.write();
    const done = () => {
      this.writing = false;
    };
    written.then(done, done);
    return written;
  }

  private publishUnpublished(): void {
    for (const publication of this.unpublished.splice(0)) publication();
  }

  /**
   * Views (and for SDK clients the state patch) first, so that an event's entity is in view before the
   * event that concerns it; then the events seen around, then each player's own; all of it leaves in
   * one write per connection, once the caller sends the writes returned.
   */
  private publish(report: TickReport): FrameWrites {
    const writes = this.runtime.outbox.batch(this.clients, (slab) => {
      this.sendViews();
      this.broadcastPatch();
      deliverEvents(report.events, this.interest, (playerId) => this.owners.get(playerId), slab, {
        answer: (event) => this.answer(event),
        isGreeted: (client) => this.greeted.has(client as WorldClient),
      });
    });
    this.interest.forgetSharedUpdates();
    return writes;
  }

  /**
   * Sends what the tick did for a message as the reply to it (see waitingReplies): the refusal it found,
   * the speaker's copy of its chat line, or the player:sync showing what it changed, once to each
   * message it answers.
   */
  private answer(event: OutboundEvent): boolean {
    switch (event.event) {
      case "error": {
        const waiting = this.takeReply(event.ref, playerTo(event));
        waiting?.reply("error", { ...event.data, event: waiting.event });
        return waiting !== undefined;
      }
      case "store:stock": {
        const waiting = this.takeReply(event.ref, playerTo(event));
        waiting?.reply("store:stock", event.data);
        return waiting !== undefined;
      }
      case "chat:message": {
        const waiting = this.takeReply(event.ref, event.data.fromPlayerId);
        waiting?.reply("chat:message", event.data);
        return waiting !== undefined;
      }
      case "player:sync": {
        const playerId = playerTo(event);
        // Only /ws replies carry the message's id: an SDK client is sent the state once, whatever it answers.
        const owner = playerId === undefined ? undefined : this.owners.get(playerId);
        const copyPerMessage = owner !== undefined && isJsonClient(owner);
        let answered = false;
        for (const ref of event.refs ?? []) {
          const waiting = this.takeReply(ref, playerId);
          if (waiting && (!answered || copyPerMessage)) waiting.reply("player:sync", event.data);
          answered ||= waiting !== undefined;
        }
        return answered;
      }
      default:
        return false;
    }
  }

  /**
   * The reply waiting for message `ref`, taken. None when the client that sent it no longer plays
   * `playerId` (it reconnected since): what answers it goes to the client that does, as a plain event.
   */
  private takeReply(ref: number | undefined, playerId: string | undefined) {
    if (ref === undefined) return undefined;
    const waiting = this.waitingReplies.get(ref);
    if (!waiting) return undefined;
    this.waitingReplies.delete(ref);
    return playerId !== undefined && this.owners.get(playerId) === waiting.client ? waiting : undefined;
  }

  /** Each player's client is sent what changed around it (views are open for the players' clients only). */
  private sendViews(): void {
    this.interest.updateAll(sendUpdate);
  }

  /** Brings the client's view up to date: a /ws client is sent CONTRACT's world:update. */
  private sendView(client: WorldClient): void {
    const update = this.interest.update(client);
    if (update) sendUpdate(client, update);
  }

  /**
   * An online player's state for the REST API, as its client may be shown it: once durable (see
   * whenPublished), so that no answer shows a change a crash would undo. Undefined when offline, once
   * its last session is written (the database then holds it). NOT_DURABLE_YET when that takes longer than
   * a remote call waits (while the world waits for its database, say).
   */
  async livePlayer(characterId: string): Promise<PlayerSync | undefined | typeof NOT_DURABLE_YET> {
    const durable = new Deferred<PlayerSync | undefined>();
    const read = () => {
      if (this.world.has(characterId)) durable.resolve(this.world.playerSync(characterId));
      else this.persistence.settled(characterId).then(() => durable.resolve(undefined));
    };
    this.whenPublished(read);
    const answer = await within(durable.promise, LIVE_READ_WAIT_MS, NOT_DURABLE_YET);
    if (answer === NOT_DURABLE_YET) this.withdrawPublication(read);
    return answer;
  }

  /**
   * The identity's seat, from memory: a character the world holds for a session of that identity (its
   * connection open, or dropped and its seat kept). See WorldSeats.
   */
  private seatOf(subject: string, characterId: string | undefined): PlayerAuth | undefined {
    const ids = characterId === undefined ? this.owners.keys() : [characterId];
    for (const id of ids) {
      const auth = this.owners.get(id)?.auth;
      if (auth?.subject === subject && this.world.has(id)) return auth;
    }
    return undefined;
  }

  /** A character was renamed through the REST API: an online player shows the new name from the next tick. */
  renamePlayer(characterId: string, name: string): void {
    if (this.world.has(characterId)) this.world.rename(characterId, name);
  }

  /** World counts for GET /api/v1/world. */
  liveStatus() {
    return { tick: this.world.tick, playersOnline: this.owners.size, entities: this.world.counts() };
  }

  /** This opening's right to write: the agents it hosts store their rows under it (see app.ts). */
  get writeFence(): WorldLease {
    return this.lease;
  }

  /** The agent endpoints' requests: the agents run in the world's process (see app.ts). */
  answerAgents(request: AgentRequest): Promise<AgentReply> {
    return answerAgentRequest(this.runtime.agents, this.lease, request);
  }

  // --- trades: called by TradeRooms through matchMaker.remoteRoomCall ---

  /** An online player's inventory, which offers are checked against. */
  inventoryOf(playerId: string): InventoryEntry[] | undefined {
    return this.world.has(playerId) ? this.world.inventory(playerId) : undefined;
  }

  /** Swaps the offers in one database transaction (see TradeCommits.commit); called by the trade's room. */
  async commitTrade(
    tradeId: string,
    a: TradeParticipant,
    b: TradeParticipant,
    answerWithinMs: number,
  ): Promise<TradeCommitOutcome> {
    const outcome = await this.tradeCommits.commit(tradeId, a, b, answerWithinMs);
    // The trade's room tells its players at once, on another connection: what the world published
    // before the swap (a tick held for the database, say) is on its way to them first.
    await this.framesOut;
    return outcome;
  }

  /** The end of a trade, for a player who is not in the trade's room: its world connection tells it. */
  tellTradeEvent(playerId: string, event: string, data: unknown): void {
    this.sendTo(playerId, event, data);
  }

  /** A TradeRoom closed: its players may trade again. */
  tradeEnded(tradeId: string): void {
    this.trades.ended(tradeId);
  }

  private async openTradeRoom(trade: Trade): Promise<void> {
    const world = { roomId: this.roomId, processId: matchMaker.processId, epoch: this.lease.epoch };
    const options: TradeRoomOptions = {
      trade,
      world,
      signature: signTrade(this.runtime.jwtSecret, trade, world),
    };
    // A /ws client joins its trade from the world's process (its connection is there, relayed or not),
    // so such a trade runs there too; SDK clients may be sent to any process.
    const hasJsonClient = trade.sides.some(({ player }) => {
      const client = this.owners.get(player.id);
      return client !== undefined && isJsonClient(client);
    });
    if (hasJsonClient) await matchMaker.handleCreateRoom("trade", options);
    else await matchMaker.createRoom("trade", options);
  }
}

/** The player an event is for, unless it is for everyone near a tile. */
function playerTo(event: OutboundEvent): string | undefined {
  return typeof event.to === "string" ? event.to : undefined;
}

/** The player of an authenticated client (onAuth always sets it before any other hook runs). */
function playerOf(client: WorldClient): PlayerAuth {
  if (!client.auth) throw new Error(`client ${client.sessionId} has no identity`);
  return client.auth;
}

/**
 * The WorldRoom class bound to one server's runtime. Joins are checked by the matchmaker, before it
 * reserves a seat (Colyseus's static onAuth): a request without a valid token, or with options the room
 * cannot read, gets no seat at all. /ws connections pass there too, with the identity their upgrade
 * verified.
 */
export function defineWorldRoom(runtime: Runtime): typeof WorldRoom {
  return class extends WorldRoom {
    protected override runtime = runtime;

    static override onAuth(_token: string, options: unknown, context: AuthContext): Promise<PlayerAuth> {
      return authorizeWorldJoin(runtime, options, context);
    }
  };
}

/** Who joins the world, and as which character (see `authenticatePlayer`). */
async function authorizeWorldJoin(
  runtime: Runtime,
  options: unknown,
  context: AuthContext,
): Promise<PlayerAuth> {
  const parsed = worldJoinOptions.safeParse(options ?? {});
  if (!parsed.success) throw new ServerError(400, `join options: ${describeIssues(parsed.error)}`);
  return toldSafely(runtime, () => authenticatePlayer(runtime, context, parsed.data.characterId));
}

function sendUpdate(client: Client, update: EncodedUpdate): void {
  countMessagesOut("world:update");
  if (isJsonClient(client)) client.send("world:update", update);
  else client.enqueueRaw(update.roomMessage());
}
