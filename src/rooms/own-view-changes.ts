// The parts of a view's update that are the client's own: its owner-only items, and, in a crowd, the
// nearest players it is shown (VIEW_MAX_PLAYERS), shared by the clients of a block of tiles. Interest
// keeps who sees what; these make the change.

import { type CrowdChoice, choiceDiff } from "../game/crowd-choices.js";
import { type Cell, sees, type TrackedEntity, type ViewIndex } from "../game/view-index.js";
import type { ClientView, EntityDiff, EntityPayload, ViewChange } from "./client-views.js";

type Index = ViewIndex<EntityPayload>;

/**
 * Whether more players than the cap, its own left out, stand in the view of a player in `cell`: its
 * players are then the nearest ones, chosen for its block of tiles (see crowd-choices.ts). Below the cap
 * it sees them all, as every client in its cell does.
 */
export function crowdedAt(index: Index, maxPlayers: number, view: ClientView, cell: Cell): boolean {
  const self = index.entity(view.playerId);
  const others = index.cappedAround(cell) - (self?.capped && sees(cell, self.at) ? 1 : 0);
  // A tenth below the cap before it stops: a view that crowds and thins by a player or two at each
  // step would otherwise be compared whole at each step. Below the cap, the nearest are all of them.
  const margin = view.choice ? Math.ceil(maxPlayers / 10) : 0;
  return others > maxPlayers - margin;
}

type Choice = CrowdChoice<TrackedEntity<EntityPayload>>;

/**
 * The tick's shared updates of crowded clients: each client that was shown one block's choice last tick
 * and is shown another's now (the same block's, mostly) is told the same, made once: what is not a player
 * as its cells' shared difference gives it, and the players that came, changed and went between the two
 * choices.
 */
export class SharedCrowdChanges {
  private byChoice = new Map<Choice, Map<Choice, EntityDiff>>();
  /** Made once: a callback made anew at each call would lose its optimized code at full collections. */
  private readonly touchedNow = (entity: TrackedEntity<EntityPayload>) => this.index.touchedNow(entity);

  constructor(private readonly index: Index) {}

  /** From `before` (the choice shown in cell `from` last tick) to `now` (shown in cell `to`). */
  of(before: Choice, now: Choice, from: Cell, to: Cell): EntityDiff {
    let fromBefore = this.byChoice.get(now);
    if (!fromBefore) {
      fromBefore = new Map();
      this.byChoice.set(now, fromBefore);
    }
    let change = fromBefore.get(before);
    if (!change) {
      change = this.make(before, now, from, to);
      fromBefore.set(before, change);
    }
    return change;
  }

  /** Lets go of the tick's updates, once sent. */
  forget(): void {
    this.byChoice = new Map();
  }

  private make(before: Choice, now: Choice, from: Cell, to: Cell): EntityDiff {
    const rest = this.index.diff(from, to, true);
    const players = choiceDiff(before, now, this.touchedNow);
    // Never the cells' difference itself: clients shown other choices in the same cells get that one too,
    // and clients given the same update must have held the same before it (see StateViewSharing).
    if (players.added.length + players.updated.length + players.removed.length === 0)
      return { added: rest.added, updated: rest.updated, removed: rest.removed };
    if (rest.added.length + rest.updated.length + rest.removed.length === 0) return players;
    return {
      added: [...rest.added, ...players.added],
      updated: [...rest.updated, ...players.updated],
      removed: [...rest.removed, ...players.removed],
    };
  }
}

/**
 * A crowded client's shared update as its own player requires: a client is always shown itself, so it
 * is never told it left or came, only how it changed. The shared update itself when its player is among
 * the players of both choices, or of neither and unchanged (the usual cases).
 */
export function withOwnPlayer(
  index: Index,
  shared: EntityDiff,
  self: TrackedEntity<EntityPayload> | undefined,
  /** Whether its player is among the players of the choice it was shown last tick, and of this tick's. */
  wasShown: boolean,
  isShown: boolean,
): EntityDiff {
  if (!self) return shared;
  if (wasShown && isShown) return shared;
  const changed = index.touchedNow(self);
  if (!wasShown && !isShown && !changed) return shared;
  return {
    added: isShown ? shared.added.filter((entity) => entity !== self) : shared.added,
    updated: changed ? [...shared.updated, self] : shared.updated,
    removed: wasShown ? shared.removed.filter((id) => id !== self.id) : shared.removed,
  };
}

/** The shared difference with the client's own owner-only items added (the shared one itself if none). */
export function withPrivateItems(
  index: Index,
  view: ClientView,
  shared: EntityDiff,
  playerId: string,
  cell: Cell,
): ViewChange {
  const mine = index.privateOf(playerId);
  if (!mine?.size && view.privateKnown.size === 0) return shared;
  const own: ViewChange = { added: [], updated: [], removed: [] };
  for (const id of view.privateKnown) {
    const entity = index.entity(id);
    if (entity?.ownerId !== undefined) continue;
    // Gone, or public now: in the shared difference if in view (`reconcile` makes that an update).
    view.privateKnown.delete(id);
    if (!entity || !sees(cell, entity.at)) own.removed.push(id);
  }
  for (const entity of mine ?? []) {
    const inView = sees(cell, entity.at);
    const known = view.privateKnown.has(entity.id);
    if (inView && !known) {
      view.privateKnown.add(entity.id);
      own.added.push(entity);
    } else if (inView && index.touchedNow(entity)) {
      own.updated.push(entity);
    } else if (!inView && known) {
      view.privateKnown.delete(entity.id);
      own.removed.push(entity.id);
    }
  }
  if (own.added.length + own.updated.length + own.removed.length === 0) return shared;
  return {
    added: [...shared.added, ...own.added],
    updated: [...shared.updated, ...own.updated],
    removed: [...shared.removed, ...own.removed],
  };
}
