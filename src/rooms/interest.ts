import { type Client, ClientState } from "@colyseus/core";
import { type CrowdChoice, ViewerChoices } from "../game/crowd-choices.js";
import { DEFAULT_VIEW_MAX_PLAYERS } from "../game/nearest-players.js";
import {
  type Cell,
  cellOf,
  NO_CELL,
  type Placement,
  sees,
  type TrackedEntity,
  ViewIndex,
} from "../game/view-index.js";
import type { World } from "../game/world.js";
import type { TickReport } from "../game/world-types.js";
import { StatePatches } from "../net/state-patches.js";
import type { EncodedUpdate } from "../protocol/encoded-json.js";
import { isJsonClient } from "../protocol/json-client.js";
import type { ViewUpdates } from "../protocol/messages.js";
import { EntityState, type WorldRoomState } from "../schema/WorldRoomState.js";
import {
  type ClientView,
  type EntityDiff,
  EntityPayload,
  encodeViewChange,
  type Listed,
  reconcile,
  type ViewChange,
} from "./client-views.js";
import { crowdedAt, SharedCrowdChanges, withOwnPlayer, withPrivateItems } from "./own-view-changes.js";
import { StateViews } from "./state-views.js";

/**
 * Interest management: each client is sent the entities of the view cells around its player (see
 * src/game/view-index.ts). Clients that stood in the same cell and still do share one computed
 * difference and one encoded world:update; only a player's own owner-only items are added per client.
 * In a crowd, the clients of a small block of tiles share one choice of the players they are shown (see
 * src/game/crowd-choices.ts), and those that stayed in one block share one update.
 * SDK clients get the same differences as state patches of their view (see StatePatches),
 * or as world:update messages if they asked for them.
 */
export class Interest {
  private readonly index = new ViewIndex<EntityPayload>();
  private readonly views = new Map<string, ClientView>();
  /** The views of the clients that read the schema state: the same changes, as state patches. */
  private readonly stateViews: StateViews;
  /** Views by the cell they were last brought up to date from: the audience of events there. */
  private readonly viewers = new Map<Cell, Set<ClientView>>();
  /** This tick's shared world:update of each difference, until forgetSharedUpdates. */
  private encoded = new WeakMap<EntityDiff, EncodedUpdate>();
  /** In a crowd, the players each block of tiles (or tile) is shown. */
  private readonly choices: ViewerChoices<TrackedEntity<EntityPayload>>;
  /** This tick's updates between choices. */
  private readonly crowdChanges: SharedCrowdChanges;
  /** `placement`, made once: a function made anew each tick loses its optimized code at full collections. */
  private readonly place = (id: string) => this.placement(id);

  constructor(
    private readonly world: World,
    state: WorldRoomState,
    /** What encodes SDK clients' state patches (the room's serializer's). */
    patches: StatePatches = new StatePatches(EntityState, () => state.entities),
    /** The most other players a client is shown: the nearest ones (VIEW_MAX_PLAYERS). */
    private readonly maxPlayers = DEFAULT_VIEW_MAX_PLAYERS,
    /** False: each SDK client that reads the state has a view of its own (see StateViewSharing). */
    shareStateViews = true,
  ) {
    this.stateViews = new StateViews(world, state, patches, shareStateViews);
    // A block's choice holds its own players too: each of them is shown the others, maxPlayers at most.
    this.choices = new ViewerChoices(this.index.cappedGrid, maxPlayers + 1);
    this.crowdChanges = new SharedCrowdChanges(this.index);
    // Ticks report what changes; what is there from the start (trees, rocks, monsters) is placed now.
    const everything = new Set(world.entities().map((entity) => entity.id));
    this.index.advance(world.tick, everything, [], this.place);
  }

  /** Takes in a tick's entity changes: the replicated state, the view index and the JSON cache. */
  applyTick(report: TickReport, changed: ReadonlySet<string>): void {
    this.stateViews.startTick(report.tick, report.removedEntities, changed);
    // A view in step that missed the tick just published is listed while the index can still say what
    // its cell saw: after this advance, it could not.
    for (const view of this.views.values()) {
      if (view.known === undefined && view.cell !== NO_CELL && view.tick < this.index.currentTick)
        view.known = this.knownOf(view);
    }
    this.index.advance(report.tick, changed, report.removedEntities, this.place);
    this.choices.forgetBefore(report.tick);
  }

  /**
   * Drops what this tick's updates shared, once they are sent: held until the next tick, it would be
   * alive at the collection after this one and copied into the old generation, to be collected there.
   */
  forgetSharedUpdates(): void {
    this.index.forgetDiffs();
    this.crowdChanges.forget();
    this.encoded = new WeakMap();
  }

  /**
   * Starts a client's view of `playerId`'s surroundings, empty: its first update lists everything in
   * view as added. A client has one view; opening another closes the one it had. /ws clients are sent
   * world:update. An SDK client reads its view from the schema state, as entries of its map, unless it
   * joined with `updates: "messages"`: then it is sent world:update as room messages.
   */
  open(client: Client, playerId: string, updates: ViewUpdates = "state"): void {
    this.close(client);
    const readsState = readsTheState(client, updates);
    this.views.set(client.sessionId, {
      client,
      playerId,
      cell: NO_CELL,
      tick: -1,
      known: undefined,
      privateKnown: new Set(),
      choice: undefined,
      selfChosen: false,
      selfPending: false,
      restart: false,
      readsState,
    });
    if (readsState) this.stateViews.opened(client);
  }

  /**
   * A reconnected session's new client object takes over its view. A client that reads world:update
   * has its view sent again whole (everything in view added, what it was sent that is out of view
   * removed): what was sent to its failing connection may never have arrived, and a client that
   * reconnected as a new room object holds nothing. One that reads the state is sent it whole by
   * the room's serializer, from its view.
   */
  reattach(client: Client): void {
    const view = this.views.get(client.sessionId);
    if (!view) return;
    if (view.readsState) this.stateViews.reattached(client);
    else view.restart = true;
    view.client = client;
  }

  /**
   * Ends a client's view: it has left (for good: a dropped client that may reconnect keeps it), or
   * another login replaced it.
   */
  close(client: Client): void {
    const view = this.views.get(client.sessionId);
    if (!view) return;
    this.views.delete(client.sessionId);
    this.moveViewer(view, NO_CELL);
    if (view.readsState) this.stateViews.closed(client);
  }

  /**
   * The views by the cell they were last brought up to date from: the audience of a `{ near }` event is
   * the clients of the cells whose block holds its tile.
   */
  viewerCells(): ReadonlyMap<Cell, ReadonlySet<Viewer>> {
    return this.viewers;
  }

  /**
   * Brings every open view up to the current tick (see `update`); `send` gets the world:update of each
   * client that reads them. Walks the views themselves: a crowded world has thousands, and looking each
   * up again by its client would cost as much as some of the work.
   */
  updateAll(send: (client: Client, update: EncodedUpdate) => void): void {
    // The state views are changed together: the clients that share one have it changed once.
    this.stateViews.startBatch();
    try {
      for (const view of this.views.values()) {
        // A dropped client that may still reconnect has left the room: its view stays as its client last
        // had it, and is compared anew (see `resync`) once the reconnected client takes it over.
        if (view.client.state === ClientState.LEAVING) continue;
        const update = this.updateView(view);
        if (update) send(view.client, update);
      }
    } finally {
      this.stateViews.endBatch();
    }
  }

  /**
   * Brings the client's view up to the current tick around its player (at its join: everything in view).
   * State views are updated here; for the clients that read world:update, the update to send is returned
   * (undefined when nothing changed).
   */
  update(client: Client): EncodedUpdate | undefined {
    const view = this.views.get(client.sessionId);
    return view && this.updateView(view);
  }

  private updateView(view: ClientView): EncodedUpdate | undefined {
    const { client, playerId } = view;
    const tick = this.index.currentTick;
    const position = this.world.positionOf(playerId);
    if ((view.tick === tick && !view.restart) || !position) return undefined;
    const cell = cellOf(position);
    const self = this.index.entity(playerId);
    const choice = crowdedAt(this.index, this.maxPlayers, view, cell)
      ? this.choices.choose(self, position, tick, view.choice)
      : undefined;
    const selfChosen = choice !== undefined && self !== undefined && choice.has(self);
    // Shared differences start from last tick's view; a view opened since (or one that missed a tick, or
    // is sent again whole, or whose players have just come to be chosen or no longer are) is compared
    // with what its client was sent, entity by entity.
    const followsOn =
      view.cell !== NO_CELL &&
      view.tick === tick - 1 &&
      !view.restart &&
      (choice === undefined) === (view.choice === undefined);
    let shared: EntityDiff | undefined;
    if (followsOn && choice && view.choice) {
      const players = this.crowdChanges.of(view.choice, choice, view.cell, cell);
      shared = withOwnPlayer(this.index, players, self, view.selfChosen, selfChosen);
    } else if (followsOn) {
      shared = this.index.diff(view.cell, cell);
    }
    let change: ViewChange;
    // In step: it held what its cell (crowded: and its choice) saw, as every client that made the same
    // move did, and is told the same.
    let inStep = false;
    if (shared) {
      // What the client has is what the shared difference starts from, unless the index is about to
      // list as new its own player or an item of its own it already has.
      const mayOverlap = view.selfPending || view.privateKnown.size > 0;
      change = withPrivateItems(this.index, view, shared, playerId, cell);
      if (mayOverlap) change = reconcile(this.knownOf(view), change);
      inStep = !mayOverlap && change === shared;
      if (view.selfPending && self) view.selfPending = false;
    } else {
      change = this.resync(view, playerId, cell, choice, selfChosen);
    }
    if (view.known && shared) {
      for (const entity of change.added) view.known.add(entity.id);
      for (const id of change.removed) view.known.delete(id);
    }
    view.tick = tick;
    view.choice = choice;
    view.selfChosen = selfChosen;
    this.moveViewer(view, cell);
    if (view.selfPending || view.privateKnown.size > 0) {
      view.known ??= this.heldNow(view, cell);
      if (view.selfPending) view.known.add(playerId);
    } else {
      view.known = undefined;
    }
    if (view.readsState) {
      this.stateViews.apply(client, change, inStep, !followsOn);
      return undefined;
    }
    if (change.added.length + change.updated.length + change.removed.length === 0) return undefined;
    if (!shared || change !== shared) return encodeViewChange(this.world, tick, change);
    let encoded = this.encoded.get(shared);
    if (!encoded) {
      encoded = encodeViewChange(this.world, tick, shared);
      this.encoded.set(shared, encoded);
    }
    return encoded;
  }

  /**
   * Everything in view, compared entity by entity with what the client was sent. Crowded, of the
   * players only those of its choice, and its own.
   */
  private resync(
    view: ClientView,
    playerId: string,
    cell: Cell,
    choice: CrowdChoice<TrackedEntity<EntityPayload>> | undefined,
    /** Its player is among the choice's players. */
    selfChosen: boolean,
  ): ViewChange {
    const known = this.knownOf(view);
    const visible: Listed[] = this.index.visibleFrom(cell, choice !== undefined);
    const self = this.index.entity(playerId);
    if (choice) {
      for (const entity of choice.players) visible.push(entity);
      if (!selfChosen) visible.push(self ?? { id: playerId });
      view.selfPending = false;
    } else {
      // A player who joined since the last tick is not placed in the index until the next one.
      view.selfPending = !self;
      if (view.selfPending) visible.push({ id: playerId });
    }
    view.privateKnown.clear();
    for (const entity of this.index.privateOf(playerId) ?? []) {
      if (!sees(cell, entity.at)) continue;
      visible.push(entity);
      view.privateKnown.add(entity.id);
    }
    const change: ViewChange = { added: [], updated: [], removed: [] };
    const whole = view.restart;
    view.restart = false;
    // Updated last tick, the client holds what it knows as of then (a crowded view that thinned out, say):
    // of that, only what changed this tick is news.
    const heldCurrent = !whole && view.tick === this.index.currentTick - 1;
    const visibleIds = new Set<string>();
    for (const entity of visible) {
      visibleIds.add(entity.id);
      if (!known.has(entity.id) || whole) change.added.push(entity);
      else if (!heldCurrent || this.changedNow(entity)) change.updated.push(entity);
    }
    for (const id of known) if (!visibleIds.has(id)) change.removed.push(id);
    view.known = new Set(visibleIds);
    return change;
  }

  /** Whether a listed entity changed this tick: one the index does not track yet (a newcomer) may have. */
  private changedNow(entity: Listed): boolean {
    return !("touched" in entity) || this.index.touchedNow(entity as TrackedEntity<EntityPayload>);
  }

  /** What a view holds once brought up to date in `cell`, held one by one. */
  private heldNow(view: ClientView, cell: Cell): Set<string> {
    const held = withChoice(view, this.index.visibleFrom(cell, view.choice !== undefined));
    for (const id of view.privateKnown) held.add(id);
    return held;
  }

  /**
   * What the client holds: kept one by one, or (in step) what its cell saw at its last update (crowded:
   * of the players, its block's choice): after the previous tick, or after this one when it was brought
   * up to date since (see `reattach`).
   */
  private knownOf(view: ClientView): Set<string> {
    if (view.known) return view.known;
    if (view.cell === NO_CELL) return new Set();
    const crowded = view.choice !== undefined;
    return withChoice(
      view,
      view.tick === this.index.currentTick
        ? this.index.visibleFrom(view.cell, crowded)
        : this.index.visibleBefore(view.cell, crowded),
    );
  }

  private moveViewer(view: ClientView, cell: Cell): void {
    if (view.cell === cell) return;
    const before = this.viewers.get(view.cell);
    before?.delete(view);
    if (before?.size === 0) this.viewers.delete(view.cell);
    view.cell = cell;
    if (cell === NO_CELL) return;
    let after = this.viewers.get(cell);
    if (!after) {
      after = new Set();
      this.viewers.set(cell, after);
    }
    after.add(view);
  }

  /** Where a changed entity is; its JSON and (while clients read it) its schema state are refreshed. */
  private placement(id: string): Placement<EntityPayload> | undefined {
    const entity = this.world.entity(id);
    const wire = this.stateViews.changed(id, entity);
    if (!entity) return undefined;
    // Its JSON is made now, once for every view that lists it until it changes again, and while it is
    // still there: a player may log out between a tick and the sending of the views that list it.
    return {
      position: entity.position,
      capped: entity.kind === "player",
      ownerId: this.world.privateOwner(id),
      payload: new EntityPayload(JSON.stringify(entity), entity, wire),
    };
  }
}

/**
 * A view as the audience of the events around it: its client, its player, and while it is crowded the
 * choice it was last shown its players by (see crowd-choices.ts): of the `{ near }` events it sees, it
 * is sent those within the choice's reach.
 */
export type Viewer = Pick<Readonly<ClientView>, "client" | "playerId" | "choice">;

/** Whether a client reads the schema state (an SDK client that did not ask for world:update messages). */
export function readsTheState(client: Client, updates: ViewUpdates = "state"): boolean {
  return !isJsonClient(client) && updates === "state";
}

/** The ids of `seen`, and crowded, of the view's choice of players as of its update, and its own. */
function withChoice(view: ClientView, seen: readonly { readonly id: string }[]): Set<string> {
  const held = new Set(seen.map(({ id }) => id));
  if (view.choice) {
    for (const entity of view.choice.players) held.add(entity.id);
    held.add(view.playerId);
  }
  return held;
}
