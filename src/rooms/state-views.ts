// The schema-state side of the views: SDK clients that read `room.state` are sent the same view changes
// as everyone else, applied to their StateView, and Colyseus sends each the patches of what its view
// holds. The replicated entities are projected from the world only while such a client is there.
import { type Client, ClientState } from "@colyseus/core";
import { StateView } from "@colyseus/schema";
import type { World } from "../game/world.js";
import type { WorldEntity } from "../game/world-types.js";
import type { PatchScopes } from "../net/patch-scopes.js";
import { EntityState, type WorldRoomState } from "../schema/WorldRoomState.js";
import type { ViewChange } from "./client-views.js";

export class StateViews {
  /** Clients that read the schema state (SDK clients by default) rather than world:update. */
  private readers = 0;
  /** Entities that changed while no client read the state: their schema state is stale until projected. */
  private readonly unprojected = new Set<string>();

  constructor(
    private readonly world: World,
    private readonly state: WorldRoomState,
    /** Where SDK clients' listings are recorded for their state patches, when the state is encoded. */
    private readonly patchScopes?: PatchScopes,
  ) {}

  opened(client: Client): void {
    client.view = new StateView();
    this.readers++;
  }

  /**
   * Its StateView lets go at once of its id and of what it made visible, as Colyseus asks; left to the
   * garbage collector, that would wait for a collection.
   */
  closed(client: Client): void {
    this.readers--;
    client.view?.dispose();
    // A replaced client may be sent one more patch before it is gone: as a client without a view.
    client.view = undefined;
  }

  /** A new tick: what left the world leaves the replicated state (`stays`: left and came back within it). */
  startTick(tick: number, removed: readonly string[], stays: (id: string) => boolean): void {
    // An entity that left and came back within the tick (a player relogging) keeps its replicated
    // instance, so every view that holds it goes on receiving its changes.
    for (const id of removed) {
      if (stays(id)) continue;
      this.state.entities.delete(id);
      this.unprojected.delete(id);
    }
    this.state.tick = tick;
    this.patchScopes?.clear();
  }

  /** An entity changed (or left: undefined): its schema state is refreshed while clients read it. */
  changed(id: string, entity: WorldEntity | undefined): void {
    if (!entity) {
      this.unprojected.delete(id);
      return;
    }
    // Without clients that read it, nobody reads the schema state: what one adds later is projected then.
    if (this.readers > 0) {
      const projected = this.project(id, entity);
      if (projected) this.patchScopes?.cover(id, projected);
    } else {
      this.unprojected.add(id);
    }
  }

  /** Brings a client's StateView up to date with its view's change (`resynced`: compared whole). */
  apply(client: Client, change: ViewChange, inStep: boolean, resynced: boolean): void {
    if (client.view)
      this.patchScopes?.scope(client.view, change, inStep, client.state === ClientState.JOINED);
    for (const { id } of change.added) {
      const projected = this.projectedNow(id);
      if (projected) client.view?.add(projected);
    }
    if (resynced && client.view) {
      for (const { id } of change.updated) {
        const projected = this.projectedNow(id);
        if (projected && !client.view.has(projected)) client.view.add(projected);
      }
    }
    for (const id of change.removed) {
      const projected = this.state.entities.get(id);
      if (projected) client.view?.remove(projected);
    }
  }

  /** The entity's replicated state as of now: projected first if it was not (see `unprojected`). */
  private projectedNow(id: string): EntityState | undefined {
    const current = this.unprojected.delete(id) ? undefined : this.state.entities.get(id);
    return current ?? this.project(id);
  }

  private project(id: string, entity = this.world.entity(id)): EntityState | undefined {
    if (!entity) return undefined;
    const existing = this.state.entities.get(id);
    if (existing) return existing.copyFrom(entity);
    const created = new EntityState().copyFrom(entity);
    this.state.entities.set(id, created);
    return created;
  }
}
