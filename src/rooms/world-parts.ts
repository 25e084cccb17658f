import { type Client, type Deferred, matchMaker } from "@colyseus/core";
import type { WorldLease } from "../db/world-lease.js";
import type { Trade } from "../game/trade.js";
import type { World } from "../game/world.js";
import type { TickReport } from "../game/world-types.js";
import type { FrameWrites } from "../net/frame-writes.js";
import type { Runtime } from "../ports/runtime.js";
import { isJsonClient } from "../protocol/json-client.js";
import { CombatLogouts } from "./combat-logouts.js";
import type { Interest } from "./interest.js";
import { MessageRouter } from "./message-router.js";
import { PendingReplies } from "./pending-replies.js";
import { TickLoop } from "./tick-loop.js";
import { TickPublisher } from "./tick-publisher.js";
import { TickSaves } from "./tick-saves.js";
import { TickTimings } from "./tick-timings.js";
import { TradeCommits } from "./trade-commits.js";
import { cancelStartedTrade, openTradeRoom } from "./trade-opening.js";
import type { WorldClient } from "./world-client.js";
import { WorldPersistence } from "./world-persistence.js";
import { WorldSessions } from "./world-sessions.js";
import { TradeRequests } from "./world-trades.js";

/** What the parts need of the Colyseus room that holds them. */
export interface WorldRoomHooks {
  roomId(): string;
  /** The room's clients now: each tick's publish writes to them. */
  clients(): WorldClient[];
  /** Colyseus's state patch, sent with the tick's views (see TickPublisher). */
  broadcastPatch(): void;
  /** Keeps a dropped client's seat (Colyseus's allowReconnection). */
  keepSeat(client: WorldClient, seconds: number): Deferred<Client>;
  /** Another world holds the lease: the room closes (see WorldRoom.closeSuperseded). */
  closeSuperseded(error: Error): void;
}

/** The world room's parts, each with one job (see WorldRoom). */
export interface WorldParts {
  readonly persistence: WorldPersistence;
  readonly combatLogouts: CombatLogouts;
  readonly trades: TradeRequests;
  readonly tradeCommits: TradeCommits;
  readonly ticks: TickLoop;
  readonly sessions: WorldSessions;
  readonly router: MessageRouter;
}

/**
 * Makes the world room's parts and wires them to each other. Some need each other (the trade requests
 * ask the sessions who is online, the sessions end a leaving player's trades): those reach the other
 * through the returned parts, which exist by the time anything calls.
 */
export function assembleWorld(
  runtime: Runtime,
  world: World,
  interest: Interest,
  lease: WorldLease,
  room: WorldRoomHooks,
): WorldParts {
  const saves = new TickSaves(world);
  const combatLogouts = new CombatLogouts(world);
  const persistence = new WorldPersistence(runtime.worldStore.forWorld(lease.world), saves, runtime.logger, {
    fence: lease,
    onSuperseded: (error) => room.closeSuperseded(error),
    // Whichever write commits (a tick's, a departure's, a trade's catch-up), what it made durable goes out.
    onWritten: () => parts.ticks.written(),
  });
  const trades = new TradeRequests({
    isOnline: (id) => parts.sessions.isOnline(id),
    nameOf: (id) => world.peek(id).name,
    distance: (a, b) => world.distance(a, b),
    send: (id, event, data) => parts.sessions.sendTo(id, event, data),
    openTradeRoom: (trade) => openTrade(trade),
    cancelStarted: cancelStartedTrade,
  });
  const tradeCommits = new TradeCommits(
    {
      world,
      isPlaying: (id) => parts.sessions.isPlaying(id),
      waitsForDatabase: () => parts.ticks.waitsForDatabase,
      tooFar: (a, b) => trades.tooFar(a, b),
      heldTick: () => parts.ticks.heldTick(),
      commitsDone: () => parts.ticks.tradesDone(),
    },
    {
      repository: runtime.worldTrades,
      persistence,
      saves,
      items: runtime.gameData.items,
      lease,
      logger: runtime.logger,
    },
  );
  const replies = new PendingReplies((id) => parts.sessions.owner(id));
  const ticks = new TickLoop({
    world,
    saves,
    persistence,
    // Half the tick: beyond that, a tick leaves too little time for I/O and a slow phase is reported.
    timings: new TickTimings(runtime.config.WORLD_TICK_MS / 2, runtime.logger),
    replies,
    tradesCommitting: () => tradeCommits.committing(),
    project,
    publish: (report): FrameWrites => publisher.publish(report),
    published: runtime.tickPace && ((tick) => runtime.tickPace?.published(tick)),
  });
  const sessions = new WorldSessions({
    runtime,
    worldId: lease.world,
    epoch: lease.epoch,
    world,
    interest,
    persistence,
    combatLogouts,
    trades,
    tradeCommits,
    ticks,
    keepSeat: room.keepSeat,
  });
  const publisher = new TickPublisher({
    outbox: runtime.outbox,
    interest,
    sessions,
    replies,
    clients: room.clients,
    broadcastPatch: room.broadcastPatch,
    pace: runtime.tickPace,
  });
  const router = new MessageRouter({
    runtime,
    worldId: lease.world,
    world,
    sessions,
    trades,
    ticks,
    replies,
  });
  const parts: WorldParts = { persistence, combatLogouts, trades, tradeCommits, ticks, sessions, router };
  return parts;

  /** A tick's "project" phase: the replicated state, then the trades and logouts the tick ended. */
  function project(report: TickReport): void {
    interest.applyTick(report, new Set(report.changedEntities));
    for (const id of report.deaths) trades.playerGone(id, "player_died");
    combatLogouts.afterTick();
    trades.expire(Date.now());
  }

  /** Opens the room of a trade the requests started, signed with this world's lease. */
  function openTrade(trade: Trade): Promise<void> {
    const opening = {
      roomId: room.roomId(),
      processId: matchMaker.processId,
      epoch: lease.epoch,
      world: lease.world,
    };
    const hasJsonClient = trade.sides.some(({ player }) => {
      const client = sessions.owner(player.id);
      return client !== undefined && isJsonClient(client);
    });
    return openTradeRoom(runtime.jwtSecret, trade, opening, hasJsonClient);
  }
}
