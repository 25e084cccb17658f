import type { Client } from "@colyseus/core";
import { StateView } from "@colyseus/schema";
import type { World } from "../game/world.js";
import type { TickReport } from "../game/world-types.js";
import { EntityState, type WorldRoomState } from "../schema/WorldRoomState.js";

/** What entered, changed in, or left one player's view since the last update, by entity id. */
export interface ViewChange {
  added: string[];
  updated: string[];
  removed: string[];
}

/**
 * Interest management: each client sees only the entities within its player's view distance.
 * SDK clients get them through their StateView (Colyseus then sends only those patches); /ws
 * clients get the same differences as world:update events. Both are computed here, once.
 */
export class Interest {
  /** Per client: the entities it has been sent, each with the stamp of the last update that saw it. */
  private readonly seen = new Map<string, Map<string, number>>();
  private stamp = 0;

  constructor(
    private readonly world: World,
    private readonly state: WorldRoomState,
  ) {}

  /** Mirrors this tick's entity changes into the replicated state (before any view is updated). */
  applyTick(report: TickReport, changed: ReadonlySet<string>): void {
    // An entity that left and came back within the tick (a player relogging) keeps its replicated
    // instance, so every view that holds it goes on receiving its changes.
    for (const id of report.removedEntities) if (!changed.has(id)) this.state.entities.delete(id);
    for (const id of report.changedEntities) this.project(id);
    this.state.tick = report.tick;
  }

  /** Starts a client's view: everything in view is new to it. */
  open(client: Client): void {
    this.seen.set(client.sessionId, new Map());
    if (!isJsonClient(client)) client.view = new StateView();
  }

  close(client: Client): void {
    this.seen.delete(client.sessionId);
  }

  /**
   * The client's view difference since the last call. SDK clients' StateViews are updated here; /ws
   * clients are sent the difference as world:update (`updated` lists only entities in `changed`).
   */
  update(client: Client, playerId: string, changed: ReadonlySet<string>): ViewChange {
    // Each entity in view is stamped with this call's number; those left with an older stamp left view.
    const stamp = ++this.stamp;
    let seen = this.seen.get(client.sessionId);
    if (!seen) {
      seen = new Map();
      this.seen.set(client.sessionId, seen);
    }
    const json = isJsonClient(client);
    const change: ViewChange = { added: [], updated: [], removed: [] };
    for (const id of this.world.visibleIds(playerId)) {
      const previous = seen.get(id);
      seen.set(id, stamp);
      if (previous === undefined) {
        change.added.push(id);
        if (!json) {
          const projected = this.state.entities.get(id) ?? this.project(id);
          if (projected) client.view?.add(projected);
        }
      } else if (changed.has(id)) {
        change.updated.push(id);
      }
    }
    for (const [id, last] of seen) {
      if (last === stamp) continue;
      seen.delete(id);
      change.removed.push(id);
      const projected = this.state.entities.get(id);
      if (projected && !json) client.view?.remove(projected);
    }
    return change;
  }

  private project(id: string): EntityState | undefined {
    const entity = this.world.entity(id);
    if (!entity) return undefined;
    const existing = this.state.entities.get(id);
    if (existing) return existing.copyFrom(entity);
    const created = new EntityState().copyFrom(entity);
    this.state.entities.set(id, created);
    return created;
  }
}

/** /ws clients read world:update instead of schema patches. */
export function isJsonClient(client: Client): boolean {
  return (client as { jsonChannel?: boolean }).jsonChannel === true;
}
