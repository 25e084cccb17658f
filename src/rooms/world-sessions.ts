import { type Client, ClientState, Deferred } from "@colyseus/core";
import { serverNotice } from "../game/chat.js";
import type { World } from "../game/world.js";
import type { PlayerSync } from "../game/world-types.js";
import { within } from "../limits/time-limit.js";
import { NOT_DURABLE_YET } from "../ports/live-world.js";
import type { Runtime } from "../ports/runtime.js";
import type { ModerationChange, ModerationReach, Release } from "../ports/world-port.js";
import type { PlayerAuth } from "../ports/world-seats.js";
import { CLOSE_REPLACED } from "../protocol/close-codes.js";
import { isJsonClient } from "../protocol/json-client.js";
import type { WorldJoinOptions } from "../protocol/messages.js";
import { countMessagesOut } from "../telemetry/metrics.js";
import { CharacterArrivals } from "./character-arrivals.js";
import type { CombatLogouts } from "./combat-logouts.js";
import { markFramesOf } from "./frame-sender.js";
import { type Interest, readsTheState } from "./interest.js";
import { watchMessageSizes } from "./message-sizes.js";
import { countSelfAnsweredFrames } from "./self-answered-frames.js";
import { type ModeratedSessions, moderateSessions } from "./session-moderation.js";
import type { TickLoop } from "./tick-loop.js";
import type { TradeCommits } from "./trade-commits.js";
import { playerOf, sendUpdate, type WorldClient } from "./world-client.js";
import type { WorldPersistence } from "./world-persistence.js";
import type { TradeRequests } from "./world-trades.js";

/**
 * How long a REST read of a player waits for its state to be durable (see livePlayer): within the 2 s that
 * Colyseus lets a call to a room on another process take.
 */
const LIVE_READ_WAIT_MS = 1500;
/** How long a player leaving in a shutdown waits for its departure's write before it is told (see leave). */
const SHUTDOWN_DEPARTURE_WAIT_MS = 1000;

export interface SessionParts {
  readonly runtime: Pick<
    Runtime,
    "agents" | "characters" | "config" | "floodGuards" | "logger" | "worldLeases"
  >;
  /** Which numbered world this is: a character arriving from another has that one let it go first. */
  readonly worldId: number;
  /** The lease epoch this opening of the world writes under. */
  readonly epoch: number;
  readonly world: World;
  readonly interest: Interest;
  readonly persistence: WorldPersistence;
  readonly combatLogouts: CombatLogouts;
  readonly trades: TradeRequests;
  readonly tradeCommits: TradeCommits;
  readonly ticks: TickLoop;
  /** Keeps a dropped client's seat for `seconds` (Colyseus's Room.allowReconnection). */
  keepSeat(client: WorldClient, seconds: number): Deferred<Client>;
}

/**
 * Who plays which character in the world: logins (a second one takes the player over), the load of a
 * character on its arrival after its last session is written, the seat kept for a dropped connection,
 * a reconnection, and the departure of a player whose session ended. A client is sent its player:sync
 * (its greeting) and its view only once what they show is durable.
 */
export class WorldSessions {
  /** The client currently playing each character. */
  private readonly owners = new Map<string, WorldClient>();
  /**
   * Who played each character kept in the world by a fight after its session ended (see CombatLogouts):
   * its player may come back to it, a full world or not.
   */
  private readonly lingering = new Map<string, PlayerAuth>();
  /** Characters being loaded for their logins. */
  private readonly arrivals: CharacterArrivals;
  /** Clients sent their player:sync (see greet). */
  private readonly greeted = new WeakSet<WorldClient>();
  /** A player's own events for its client not yet sent its player:sync: sent right after it (see sendTo). */
  private readonly heldUntilGreeted = new Map<string, { event: string; data: unknown }[]>();
  /** The world is shutting down: its closing write (see WorldRoom.onDispose) takes every departure. */
  private closing = false;

  /** The sessions as moderation reads them (see moderateSessions). */
  private readonly moderated: ModeratedSessions;

  constructor(private readonly parts: SessionParts) {
    this.arrivals = new CharacterArrivals(parts, (characterId) => this.owners.has(characterId));
    this.moderated = {
      world: parts.world,
      owners: this.owners,
      lingering: this.lingering,
      sendTo: (playerId, event, data) => this.sendTo(playerId, event, data),
    };
  }

  async join(client: WorldClient, options: WorldJoinOptions | undefined): Promise<void> {
    const { world, interest, trades, ticks } = this.parts;
    const { characterId } = playerOf(client);
    this.countFramesOf(client);
    client.userData = { isAdmin: false };
    const previous = this.owners.get(characterId);
    this.owners.set(characterId, client);
    if (previous) {
      // A character is in the world once: the newer login takes over the same player, and is the only
      // one sent its surroundings from now on.
      interest.close(previous);
      // The replaced session has logged out: its trade ends, or its own connection to the trade's room
      // (an SDK client's is apart from the world's) could finish it behind the new session's back.
      trades.playerGone(characterId, "partner_disconnected");
      previous.userData?.reconnection?.reject(new Error("replaced by a new login"));
      previous.leave(CLOSE_REPLACED, "logged in elsewhere");
    }
    // A player still in the world (its old session leaving or just replaced) is simply taken over, its
    // prayers off as at every login: kept on, they would drain points the new session never switched on.
    if (world.has(characterId)) world.prayersOff(characterId);
    else {
      const tradesEnded = await this.arrivals.arrive(characterId);
      if (this.owners.get(characterId) !== client) return;
      // Ended as it left the world it played in, where its session closed before hearing it.
      for (const tradeId of tradesEnded)
        this.sendTo(characterId, "tradeCancelled", { tradeId, reason: "disconnected" });
    }
    this.log(client, "joined");
    // A client that reads the state needs its view now: Colyseus sends it the state as it joins. Others
    // open theirs with the player:sync they are sent first, after any tick held meanwhile.
    const readsState = readsTheState(client, options?.updates);
    if (readsState) interest.open(client, characterId, options?.updates);
    ticks.whenPublished(() => {
      // The session may have reconnected meanwhile, as a new client object.
      const current = this.owners.get(characterId);
      if (current?.sessionId !== client.sessionId) return;
      if (!readsState) interest.open(current, characterId, options?.updates);
      this.greet(current, characterId);
      this.sendView(current);
    });
  }

  /**
   * Lets a character go for a login in another world (see releaseFromWorld): its session is replaced,
   * and it leaves with its state written. A player in a fight stays: leaving would escape it.
   */
  async release(characterId: string): Promise<Release> {
    const { world, interest, trades, tradeCommits, persistence } = this.parts;
    if (world.has(characterId) && world.inCombat(characterId)) return "in_combat";
    const client = this.owners.get(characterId);
    // The session closes now: the login in the other world hears of the trades that end with it, but
    // for an SDK client's started trade, whose own connection to the trade's room hears it there.
    const tradesEnded = client ? trades.endedBy(characterId, isJsonClient(client)) : [];
    if (client) {
      this.owners.delete(characterId);
      this.heldUntilGreeted.delete(characterId);
      interest.close(client);
      trades.playerGone(characterId, "partner_disconnected");
      client.userData?.reconnection?.reject(new Error("logged in to another world"));
      client.leave(CLOSE_REPLACED, "logged in to another world");
      this.log(client, "left");
    }
    await tradeCommits.settled(characterId);
    await this.depart(characterId);
    await persistence.settled(characterId);
    return { tradesEnded };
  }

  /** An admin's moderation of the sessions here: see moderateSessions. */
  moderate(change: ModerationChange): ModerationReach {
    return moderateSessions(this.moderated, change);
  }

  /** An admin's announcement to every player here (see moderation.ts): how many it reached. */
  announce(text: string): number {
    const notice = serverNotice(text, Date.now());
    for (const characterId of this.owners.keys()) this.sendTo(characterId, "chat:message", notice);
    return this.owners.size;
  }

  drop(client: WorldClient): void {
    if (this.owners.get(playerOf(client).characterId) !== client) return;
    // Removed by an admin: no seat is kept, so Colyseus has it leave at once.
    if (client.userData?.removed) return;
    // A dropped connection ends the player's trades at once, even while the seat is kept.
    this.parts.trades.playerGone(playerOf(client).characterId, "partner_disconnected");
    const reconnection = this.parts.keepSeat(client, this.parts.runtime.config.RECONNECT_SECONDS);
    if (client.userData) client.userData.reconnection = reconnection;
    reconnection.catch(() => {});
  }

  reconnect(client: WorldClient): void {
    if (client.userData) client.userData.reconnection = undefined;
    this.countFramesOf(client);
    const { characterId } = playerOf(client);
    // The reconnected session is a new client object for the same session: it plays from now on.
    if (this.owners.get(characterId)?.sessionId === client.sessionId) this.owners.set(characterId, client);
    // It keeps the view it had, which the full state is encoded from once this returns:
    // the view is brought up to date first, so that the state shows nothing that left it meanwhile. A
    // client that reads world:update is sent its view whole again.
    this.parts.interest.reattach(client);
    this.parts.ticks.whenPublished(() => {
      if (this.owners.get(characterId) !== client || !this.parts.world.has(characterId)) return;
      this.greet(client, characterId);
      this.sendView(client);
    });
  }

  async leave(client: WorldClient): Promise<void> {
    const { interest, trades, tradeCommits, combatLogouts } = this.parts;
    interest.close(client);
    const { characterId } = playerOf(client);
    if (this.owners.get(characterId) !== client) return;
    this.owners.delete(characterId);
    this.heldUntilGreeted.delete(characterId);
    this.log(client, "left");
    trades.playerGone(characterId, "partner_disconnected");
    await tradeCommits.settled(characterId);
    // The client goes now, its player once its fight is over: a client waiting for its leave to be
    // answered (an SDK's room.leave(), an agent stopped by DELETE or a shutdown) does not wait a minute.
    const kept = combatLogouts.keep(characterId, () => void this.depart(characterId));
    if (kept) {
      this.lingering.set(characterId, playerOf(client));
      return;
    }
    const departed = this.depart(characterId);
    // Colyseus sends a leaving client its close only once this returns: in a shutdown, a player is not
    // kept waiting for a write a stalled database may hold until the process is killed (the world's
    // closing write takes the departure then).
    if (this.closing) await within(departed, SHUTDOWN_DEPARTURE_WAIT_MS, undefined);
    else await departed;
  }

  /** The world is shutting down: players leave without waiting for their departures' writes. */
  shutDown(): void {
    this.closing = true;
  }

  /** Takes a player whose session ended out of the world, unless a new session took it over meanwhile. */
  private async depart(characterId: string): Promise<void> {
    const { world, persistence, ticks } = this.parts;
    this.lingering.delete(characterId);
    if (!world.has(characterId) || this.owners.has(characterId) || ticks.isSuperseded) return;
    // A failed write is logged, and the departure goes with the writes that follow until one commits;
    // the seat is let go all the same.
    await persistence.writeFinal([{ state: world.leave(characterId) }]).catch(() => {});
  }

  /** The closing world's last write: every player still in it leaves with it. */
  departAll(): Promise<void> {
    const { world, persistence } = this.parts;
    const remaining = [...this.owners.keys()].filter((id) => world.has(id));
    return persistence.writeFinal(remaining.map((id) => ({ state: world.leave(id) })));
  }

  /** The client playing the character now. */
  owner(characterId: string): WorldClient | undefined {
    return this.owners.get(characterId);
  }

  /** Whether the client plays its character now: a session a second login replaced, or gone, does not. */
  plays(client: WorldClient): boolean {
    const { characterId } = playerOf(client);
    return this.owners.get(characterId) === client && this.parts.world.has(characterId);
  }

  /** Whether the character is played in the world by a session (not only kept there by a fight). */
  isPlaying(characterId: string): boolean {
    return this.owners.has(characterId) && this.parts.world.has(characterId);
  }

  /** A dropped client keeps its seat for a while, but nothing sent to it arrives: it is not online. */
  isOnline(characterId: string): boolean {
    const client = this.owners.get(characterId);
    return client !== undefined && client.state !== ClientState.LEAVING && this.parts.world.has(characterId);
  }

  /**
   * Whether the world has room for the client's login: a seat of its own, or its character's seat to
   * take over. Join at once on yes (in the same step): the seat is taken as the join begins.
   */
  admits(client: WorldClient, capacity: number): boolean {
    const { characterId } = playerOf(client);
    return this.owners.has(characterId) || this.lingering.has(characterId) || this.owners.size < capacity;
  }

  /**
   * Whether a session of the identity holds a seat here (as `characterId` when named): playing, dropped
   * and kept, kept by a fight, or still being loaded for its login. A login of its own takes it over.
   */
  holdsSeat(subject: string, characterId: string | undefined): boolean {
    const ids = characterId === undefined ? [...this.owners.keys(), ...this.lingering.keys()] : [characterId];
    return ids.some((id) => (this.owners.get(id)?.auth ?? this.lingering.get(id))?.subject === subject);
  }

  /**
   * A character renamed while it is loaded for a login: it may have been read with its old name, so the
   * new one is given once it is in the world. False when it is not being loaded.
   */
  renameArriving(characterId: string, name: string): boolean {
    return this.arrivals.rename(characterId, name);
  }

  /** How many characters are played. */
  get count(): number {
    return this.owners.size;
  }

  isGreeted(client: Client): boolean {
    return this.greeted.has(client as WorldClient);
  }

  /** Sends a player's client an event of its own, after its player:sync if that is still to come (false: it has none). */
  sendTo(playerId: string, event: string, data: unknown): boolean {
    const client = this.owners.get(playerId);
    // A connection on its way out (a kick, a drop) would take it nowhere.
    if (!client || client.state === ClientState.LEAVING) return false;
    if (this.greeted.has(client)) client.send(event, data);
    // player:sync comes first, always: a login that took over a session hears after it how its trades ended.
    else
      this.heldUntilGreeted.set(playerId, [...(this.heldUntilGreeted.get(playerId) ?? []), { event, data }]);
    return true;
  }

  /**
   * An online player's state for the REST API, as its client may be shown it: once durable (see
   * TickLoop.whenPublished), so that no answer shows a change a crash would undo. Undefined when
   * offline, once its last session is written (the database then holds it). NOT_DURABLE_YET when that
   * takes longer than a remote call waits (while the world waits for its database, say).
   */
  async livePlayer(characterId: string): Promise<PlayerSync | undefined | typeof NOT_DURABLE_YET> {
    const { world, persistence, ticks } = this.parts;
    const durable = new Deferred<PlayerSync | undefined>();
    const read = () => {
      if (world.has(characterId)) durable.resolve(world.playerSync(characterId));
      else persistence.settled(characterId).then(() => durable.resolve(undefined));
    };
    ticks.whenPublished(read);
    const answer = await within(durable.promise, LIVE_READ_WAIT_MS, NOT_DURABLE_YET);
    if (answer === NOT_DURABLE_YET) ticks.withdraw(read);
    return answer;
  }

  /**
   * The identity's seat, from memory: a character the world holds for a session of that identity (its
   * connection open, dropped and its seat kept, or ended in a fight the character fights on). See WorldSeats.
   */
  seatOf(subject: string, characterId: string | undefined): PlayerAuth | undefined {
    const ids = characterId === undefined ? [...this.owners.keys(), ...this.lingering.keys()] : [characterId];
    for (const id of ids) {
      const auth = this.owners.get(id)?.auth ?? this.lingering.get(id);
      if (auth?.subject === subject && this.parts.world.has(id)) return auth;
    }
    return undefined;
  }

  /**
   * Sends a client its player:sync, the first thing it is sent: until then it is sent none of the
   * events around it (see TickPublisher), which the sync's state already shows.
   */
  private greet(client: WorldClient, characterId: string): void {
    client.send("player:sync", this.parts.world.playerSync(characterId));
    countMessagesOut("player:sync");
    this.greeted.add(client);
    for (const { event, data } of this.heldUntilGreeted.get(characterId) ?? []) client.send(event, data);
    this.heldUntilGreeted.delete(characterId);
  }

  /** Brings the client's view up to date: a /ws client is sent the protocol's world:update. */
  private sendView(client: WorldClient): void {
    const update = this.parts.interest.update(client);
    if (update) sendUpdate(client, update);
  }

  private log(client: WorldClient, did: "joined" | "left"): void {
    const { characterId, characterName } = playerOf(client);
    const kind = this.clientKind(client);
    this.parts.runtime.logger.info(
      { characterId, name: characterName, client: kind },
      `${characterName} ${did} the world (${kind})`,
    );
  }

  /** How a player's client connects, for the log: the /ws channel, an SDK client, or one of the server's agents. */
  private clientKind(client: WorldClient): "/ws" | "SDK" | "agent" {
    if (isJsonClient(client)) return "/ws";
    const { characterId } = playerOf(client);
    return this.parts.runtime.agents.list().some((agent) => agent.record.characterId === characterId)
      ? "agent"
      : "SDK";
  }

  /** An SDK connection's frames that reach no handler count too; the /ws channel counts its own frames. */
  private countFramesOf(client: WorldClient): void {
    if (isJsonClient(client)) return;
    const { characterId } = playerOf(client);
    countSelfAnsweredFrames(client, () => this.parts.runtime.floodGuards.of(characterId));
    watchMessageSizes(client);
    markFramesOf(client, { sessionId: client.sessionId, characterId });
  }
}
