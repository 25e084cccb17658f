// The schema-state side of the views: SDK clients that read `room.state` are sent the same view changes
// as everyone else, applied to their StateView, and Colyseus sends each the patches of what its view
// holds. The replicated entities are projected from the world only while such a client is there.
import type { Client } from "@colyseus/core";
import type { World } from "../game/world.js";
import type { WorldEntity } from "../game/world-types.js";
import type { PatchScopes } from "../net/patch-scopes.js";
import { EntityState, type WorldRoomState } from "../schema/WorldRoomState.js";
import type { ViewChange } from "./client-views.js";
import { type HeldView, StateViewSharing, type ViewUpdate } from "./state-view-sharing.js";

export class StateViews {
  /** Clients that read the schema state (SDK clients by default) rather than world:update. */
  private readers = 0;
  /** Entities that changed while no client read the state: their schema state is stale until projected. */
  private readonly unprojected = new Set<string>();
  private readonly sharing: StateViewSharing;

  constructor(
    private readonly world: World,
    private readonly state: WorldRoomState,
    /** Where SDK clients' listings are recorded for their state patches, when the state is encoded. */
    private readonly patchScopes?: PatchScopes,
    /** False: each SDK client has a StateView of its own (see StateViewSharing). */
    shareViews = true,
  ) {
    this.sharing = new StateViewSharing(
      (held, update) => this.applyToView(held, update),
      () => this.state.entities.values().next().value,
      shareViews,
    );
  }

  opened(client: Client): void {
    this.sharing.opened(client);
    this.readers++;
  }

  /**
   * The client leaves its StateView; one nobody reads any more lets go at once of what it made visible,
   * as Colyseus asks (left to the garbage collector, that would wait for a collection).
   */
  closed(client: Client): void {
    this.readers--;
    this.sharing.closed(client);
  }

  /** The StateViews changed by `run`'s `apply` calls are changed together once it is done (see StateViewSharing). */
  batch(run: () => void): void {
    this.sharing.batch(run);
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
    this.sharing.startTick();
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
    this.sharing.update({ client, change, inStep, resynced });
  }

  private applyToView({ view, held }: HeldView, { change, resynced }: ViewUpdate): void {
    this.patchScopes?.scope(view, change);
    for (const { id } of change.added) {
      const projected = this.projectedNow(id);
      if (!projected) continue;
      view.add(projected);
      held.set(id, projected);
    }
    if (resynced) {
      for (const { id } of change.updated) {
        const projected = this.projectedNow(id);
        if (!projected || view.has(projected)) continue;
        view.add(projected);
        held.set(id, projected);
      }
    }
    for (const id of change.removed) {
      const projected = this.state.entities.get(id);
      if (projected) view.remove(projected);
      held.delete(id);
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
