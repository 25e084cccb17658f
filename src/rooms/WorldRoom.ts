import { performance } from "node:perf_hooks";
import { type AuthContext, CloseCode, Room, ServerError } from "@colyseus/core";
import { type AgentReply, type AgentRequest, answerAgentRequest } from "../agents/requests.js";
import { sightingIntervalMs } from "../auth/sightings.js";
import type { TradeParticipant } from "../db/trades.js";
import type { WorldLease } from "../db/world-lease.js";
import type { InventoryEntry } from "../game/character-state.js";
import { seededRandom } from "../game/random.js";
import type { TradeErrorReason } from "../game/trade-reasons.js";
import { World } from "../game/world.js";
import type { PlayerSync } from "../game/world-types.js";
import { StatePatches } from "../net/state-patches.js";
import type { NOT_DURABLE_YET, WorldStatus } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";
import type {
  ModerationChange,
  ModerationReach,
  Release,
  TradeCommitOutcome,
  WorldPort,
} from "../ports/world-port.js";
import type { PlayerAuth } from "../ports/world-seats.js";
import {
  describeIssues,
  type Reply,
  sdkMessage,
  type WorldJoinOptions,
  worldJoinOptions,
} from "../protocol/messages.js";
import { EntityState, WorldRoomState } from "../schema/WorldRoomState.js";
import { reportPlayersOnline } from "../telemetry/metrics.js";
import { Interest } from "./interest.js";
import { refusedForSize } from "./message-sizes.js";
import { authenticatePlayer, identityOf, toldSafely } from "./room-auth.js";
import { admittingWorld, WorldFullError } from "./world-choice.js";
import { worldHoldingSeat } from "./world-claims.js";
import { playerOf, type WorldClient } from "./world-client.js";
import { assembleWorld, type WorldParts } from "./world-parts.js";
import type { WorldPersistence } from "./world-persistence.js";

/**
 * How often the world checks that no other world replaced it, besides each write: as often as a process
 * that was taken for dead and comes back lists its rooms again (Colyseus's swept check, 5 s).
 */
const LEASE_CHECK_MS = 5000;

/**
 * The world as a Colyseus room: one authoritative 600 ms tick over the game rules of src/game. The room
 * only wires its parts and hands Colyseus's hooks to them: the sessions (WorldSessions), the messages
 * (MessageRouter, which only validates and queues), the tick and its durability (TickLoop: the tick
 * applies intents, then the room projects the changes into the replicated state, persists them, and only
 * then delivers the tick's events, so a bank acknowledgement follows its commit), and the calls the rest
 * of the server makes to the world (WorldPort).
 */
export class WorldRoom extends Room<{ state: WorldRoomState; client: WorldClient }> implements WorldPort {
  /** Set by `defineWorldRoom`: the server's runtime. */
  protected runtime!: Runtime;
  override autoDispose = false;
  override state = new WorldRoomState();
  /** The SDK clients' state patches: encoded by the room's serializer, from the views Interest keeps. */
  private readonly patches = new StatePatches(EntityState, () => this.state.entities);

  private world!: World;
  /** Which numbered world this room is (1..WORLDS): its own players, ground items and lease. */
  worldId = 1;
  /** This opening's right to write (see WorldLease); the agents beside it write under it too. */
  private lease!: WorldLease;
  private parts!: WorldParts;
  /** The world's writes (see WorldPersistence): the room checks its lease and flushes it at the end. */
  private persistence!: WorldPersistence;
  /** Stops this world's reports to /health and /metrics, and its answers to logins the database cannot answer. */
  private stopServing = () => {};

  override async onCreate(options: { world?: number } = {}): Promise<void> {
    const { runtime } = this;
    this.worldId = options.world ?? 1;
    this.world = new World({
      data: runtime.gameData,
      random: seededRandom(runtime.config.WORLD_SEED ?? Date.now()),
      now: () => performance.now(),
      wallClock: () => Date.now(),
      tickMs: runtime.config.WORLD_TICK_MS,
    });
    // Claimed before anything is loaded: the world this one replaces can write nothing from now on.
    this.lease = await runtime.worldLeases.claim(this.worldId);
    // What lay on the ground when the world last stopped lies there again.
    const ground = runtime.worldStore.forWorld(this.worldId);
    this.world.restoreGroundItems(await ground.loadGround(this.world.tick));
    const interest = new Interest(this.world, this.state, this.patches, runtime.config.VIEW_MAX_PLAYERS);
    this.parts = assembleWorld(runtime, this.world, interest, this.lease, {
      roomId: () => this.roomId,
      clients: () => this.clients,
      broadcastPatch: () => this.broadcastPatch(),
      keepSeat: (client, seconds) => this.allowReconnection(client, seconds),
      closeSuperseded: (error) => this.closeSuperseded(error),
    });
    this.persistence = this.parts.persistence;
    this.serve(runtime.config.WORLD_TICK_MS);
    runtime.logger.info(
      {
        roomId: this.roomId,
        world: this.worldId,
        epoch: this.lease.epoch,
        groundItems: this.world.counts().items,
      },
      `world ${this.worldId} opened in this process (lease epoch ${this.lease.epoch})`,
    );
  }

  /** Starts the clocks, the reports and the message handler of a world whose parts are made. */
  private serve(tickMs: number): void {
    const { runtime } = this;
    const stopHealthReports = runtime.worldHealth.report(() => this.persistence.databaseState());
    const stopSeats = runtime.worldSeats.serve((subject, id) => this.parts.sessions.seatOf(subject, id));
    const stopReportingOnline = reportPlayersOnline(() => this.parts.sessions.count);
    this.stopServing = () => {
      stopHealthReports();
      stopSeats();
      stopReportingOnline();
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
    // The tick's one caller.
    this.setSimulationInterval(() => {
      if (runtime.tickPace?.mayStep() !== false) this.parts.ticks.tick();
    }, tickMs);
    // No patches on a timer of their own: each tick's publish sends its patch (see TickPublisher).
    this.patchRate = null;
    this.onMessage("*", (client, type, message) => {
      const { event, data } = sdkMessage(type, message);
      const flood = runtime.floodGuards.of(playerOf(client as WorldClient).characterId);
      if (refusedForSize(client, event, flood)) return;
      this.handleMessage(client as WorldClient, event, data);
    });
  }

  /** Colyseus's schema serializer, with each SDK client's view encoded by StatePatches. */
  override setSerializer(): void {
    super.setSerializer(this.patches.serializer());
  }

  override onJoin(client: WorldClient, options: WorldJoinOptions | undefined): Promise<void> {
    return toldSafely(this.runtime, async () => {
      // Checked and taken in one step, so logins at the same moment (or by room id, past the world
      // onAuth chose) cannot take the world past its capacity.
      if (!this.parts.sessions.admits(client, this.runtime.config.WORLD_CAPACITY))
        throw WorldFullError.of(this.worldId);
      await this.parts.sessions.join(client, options);
    });
  }

  override onDrop(client: WorldClient): void {
    this.parts.sessions.drop(client);
  }

  override onReconnect(client: WorldClient): void {
    this.parts.sessions.reconnect(client);
  }

  override onLeave(client: WorldClient): Promise<void> {
    return this.parts.sessions.leave(client);
  }

  /** The one entry point of client messages, for SDK clients and /ws clients alike (see MessageRouter). */
  handleMessage(
    client: WorldClient,
    type: string,
    message: unknown,
    reply: Reply = client.send.bind(client),
  ): void {
    this.runtime.tickPace?.received();
    this.parts.router.handle(client, type, message, reply);
  }

  /** Trades end with `server_shutdown` (not as if each player had dropped), then everyone is let go. */
  override onBeforeShutdown(): void {
    this.parts.trades.shutdown();
    this.parts.sessions.shutDown();
    this.parts.combatLogouts.releaseAll();
    super.onBeforeShutdown();
  }

  /**
   * Another world opened (this process was taken for dead): this one can save nothing, so it closes.
   * Its players come back to the new world with what was saved last; what this world did since is not
   * kept, as after a crash, and nothing is saved twice.
   */
  private closeSuperseded(error: Error): void {
    this.runtime.logger.error(
      { err: error, world: this.worldId, epoch: this.lease.epoch },
      "another world opened while this one ran: closing it without saving",
    );
    this.parts.ticks.supersede();
    this.parts.combatLogouts.releaseAll();
    this.disconnect(CloseCode.SERVER_SHUTDOWN).catch(() => {});
  }

  override async onDispose(): Promise<void> {
    this.stopServing();
    this.runtime.logger.info(
      { roomId: this.roomId, world: this.worldId, epoch: this.lease.epoch },
      `world ${this.worldId} closed in this process`,
    );
    if (this.parts.ticks.isSuperseded) return;
    this.parts.sessions.departAll().catch(() => {});
    await this.persistence.flush();
  }

  /** This opening's right to write: the agents it hosts store their rows under it (see app.ts). */
  get writeFence(): WorldLease {
    return this.lease;
  }

  // --- WorldPort: called through matchMaker.remoteRoomCall by the REST API, the agents and the trades ---

  livePlayer(characterId: string): Promise<PlayerSync | undefined | typeof NOT_DURABLE_YET> {
    return this.parts.sessions.livePlayer(characterId);
  }

  releaseCharacter(characterId: string): Promise<Release> {
    return this.parts.sessions.release(characterId);
  }

  plays(characterId: string): boolean {
    return this.parts.sessions.isPlaying(characterId);
  }

  moderate(change: ModerationChange): ModerationReach {
    return this.parts.sessions.moderate(change);
  }

  announce(text: string): number {
    return this.parts.sessions.announce(text);
  }

  holdsSeat(subject: string, characterId: string | null): boolean {
    return this.parts.sessions.holdsSeat(subject, characterId ?? undefined);
  }

  renamePlayer(characterId: string, name: string): void {
    if (this.world.has(characterId)) this.world.rename(characterId, name);
    else this.parts.sessions.renameArriving(characterId, name);
  }

  liveStatus(): WorldStatus {
    return { tick: this.world.tick, playersOnline: this.parts.sessions.count, entities: this.world.counts() };
  }

  answerAgents(request: AgentRequest): Promise<AgentReply> {
    return answerAgentRequest(this.runtime.agents, this.worldId, this.lease, request);
  }

  inventoryOf(playerId: string): InventoryEntry[] | undefined {
    return this.world.has(playerId) ? this.world.inventory(playerId) : undefined;
  }

  /** Swaps the offers in one database transaction (see TradeCommits.commit). */
  async commitTrade(
    tradeId: string,
    a: TradeParticipant,
    b: TradeParticipant,
    answerWithinMs: number,
  ): Promise<TradeCommitOutcome> {
    const outcome = await this.parts.tradeCommits.commit(tradeId, a, b, answerWithinMs);
    // The trade's room tells its players at once, on another connection: what the world published
    // before the swap (a tick held for the database, say) is on its way to them first.
    await this.parts.ticks.framesSent();
    return outcome;
  }

  tellTradeEvent(playerId: string, event: string, data: unknown): boolean {
    return this.parts.sessions.sendTo(playerId, event, data);
  }

  tradeEnded(tradeId: string): void {
    this.parts.trades.ended(tradeId);
  }

  /** Why a /ws player's trade message naming `tradeId` finds no trade of its own to act on. */
  tradeRefusalFor(playerId: string, tradeId: string): TradeErrorReason {
    return this.parts.trades.refusalFor(playerId, tradeId);
  }
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

/**
 * Who joins the world, and as which character (see `authenticatePlayer`), and in which numbered world:
 * the one named, or the least full. The choice is written into the join's options, which the matchmaker
 * then filters the rooms by (it calls onAuth with the very options object it looks the room up with).
 */
async function authorizeWorldJoin(
  runtime: Runtime,
  options: unknown,
  context: AuthContext,
): Promise<PlayerAuth> {
  const parsed = worldJoinOptions.safeParse(options ?? {});
  if (!parsed.success) throw new ServerError(400, `join options: ${describeIssues(parsed.error)}`);
  const heldSeat = async () => {
    const identity = await identityOf(runtime, context);
    return worldHoldingSeat(identity.subject, parsed.data.characterId);
  };
  const world = await toldSafely(runtime, () => admittingWorld(runtime.config, parsed.data.world, heldSeat));
  if (options && typeof options === "object") (options as WorldJoinOptions).world = world;
  return toldSafely(runtime, () => authenticatePlayer(runtime, context, parsed.data.characterId));
}
