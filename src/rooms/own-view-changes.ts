// The parts of a view's update that are the client's own: its owner-only items, and, in a crowd, the
// nearest players it is shown (VIEW_MAX_PLAYERS). Interest keeps who sees what; these make the change.

import type { Tile } from "../game/types.js";
import { type Cell, sees, type ViewIndex } from "../game/view-index.js";
import {
  type ClientView,
  type EntityDiff,
  type EntityPayload,
  type Listed,
  reconcile,
  type ViewChange,
} from "./client-views.js";

type Index = ViewIndex<EntityPayload>;

/**
 * Whether more players than the cap, its own left out, stand in the view of a player in `cell`: its
 * players are then the nearest ones, chosen for it alone. Below the cap it sees them all, as every
 * client in its cell does.
 */
export function crowdedAt(index: Index, maxPlayers: number, view: ClientView, cell: Cell): boolean {
  const self = index.entity(view.playerId);
  const others = index.cappedAround(cell) - (self?.capped && sees(cell, self.at) ? 1 : 0);
  // A tenth below the cap before it stops: a view that crowds and thins by a player or two at each
  // step would otherwise be compared whole at each step. Below the cap, the nearest are all of them.
  const margin = view.crowd ? Math.ceil(maxPlayers / 10) : 0;
  return others > maxPlayers - margin;
}

/**
 * A crowded view's update from the last tick's: what is not a player as its cell's shared difference
 * gives it (with its own items), and its players as the nearest ones now, against those it was shown.
 */
export function crowdChange(
  index: Index,
  maxPlayers: number,
  view: ClientView,
  playerId: string,
  position: Tile,
  cell: Cell,
): ViewChange {
  const known = view.known!;
  const shown = view.crowd!;
  // Its own items turned public are listed as new by the shared difference (see updateView).
  const mayOverlap = view.privateKnown.size > 0;
  let change = withPrivateItems(index, view, index.diff(view.cell, cell, true), playerId, cell);
  if (mayOverlap) change = reconcile(known, change);
  const added: Listed[] = [...change.added];
  const updated: Listed[] = [...change.updated];
  const removed = [...change.removed];
  const self = index.entity(playerId);
  for (const entity of index.nearestCapped(position, maxPlayers, (e) => shown.has(e), self)) {
    if (!shown.has(entity)) {
      shown.add(entity);
      added.push(entity);
    } else if (index.touchedNow(entity)) {
      updated.push(entity);
    }
  }
  for (const entity of shown) {
    if (index.chosenLast(entity)) continue;
    shown.delete(entity);
    removed.push(entity.id);
  }
  // Its own player is always in view, whatever the crowd.
  if (!known.has(playerId)) added.push(self ?? { id: playerId });
  else if (!self || index.touchedNow(self)) updated.push(self ?? { id: playerId });
  return { added, updated, removed };
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
