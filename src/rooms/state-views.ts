// The schema-state side of the views: SDK clients that read `room.state` are sent the same view changes
// as everyone else, applied to their view, and StatePatches encodes each its patches of what its view
// holds. The entities are projected for the patches only while such a client is there.
import type { Client } from "@colyseus/core";
import type { World } from "../game/world.js";
import type { WorldEntity } from "../game/world-types.js";
import type { StatePatches, WireEntity } from "../net/state-patches.js";
import { isJsonClient } from "../protocol/json-client.js";
import { entityFields, type WorldRoomState } from "../schema/WorldRoomState.js";
import type { ViewChange } from "./client-views.js";
import { type HeldView, StateViewSharing, type ViewUpdate } from "./state-view-sharing.js";

export class StateViews {
  /** Clients that read the schema state (SDK clients by default) rather than world:update. */
  private readers = 0;
  /** Entities that changed while no client read the state: their fields are stale until projected. */
  private readonly unprojected = new Set<string>();
  private readonly sharing: StateViewSharing;

  constructor(
    private readonly world: World,
    private readonly state: WorldRoomState,
    private readonly patches: StatePatches,
    /** False: each SDK client has a view of its own (see StateViewSharing). */
    shareViews = true,
  ) {
    this.sharing = new StateViewSharing((held, update) => this.applyToView(held, update), shareViews);
    patches.readViewsWith((client) => this.sharing.viewOf(client), isJsonClient);
  }

  opened(client: Client): void {
    this.sharing.opened(client);
    this.readers++;
  }

  /** A reconnected client takes over its view, which it is sent whole. */
  reattached(client: Client): void {
    this.sharing.reattached(client);
  }

  closed(client: Client): void {
    this.readers--;
    this.sharing.closed(client);
  }

  /** The views changed by `apply` calls from here until `endBatch` are changed together (see StateViewSharing). */
  startBatch(): void {
    this.sharing.startBatch();
  }

  endBatch(): void {
    this.sharing.endBatch();
  }

  /** A new tick: what left the world leaves the replicated state, but what changed since (came back within it). */
  startTick(tick: number, removed: readonly string[], changed: ReadonlySet<string>): void {
    // An entity that left and came back within the tick (a player relogging) keeps its ref id, so every
    // view that holds it goes on receiving its changes.
    for (const id of removed) {
      if (changed.has(id)) continue;
      this.patches.retire(id);
      this.unprojected.delete(id);
    }
    this.state.tick = tick;
    this.sharing.startTick();
  }

  /**
   * An entity changed (or left: undefined): its fields are refreshed while clients read them. Returns its
   * wire object then, which the listings of this tick carry to the patches.
   */
  changed(id: string, entity: WorldEntity | undefined): WireEntity | undefined {
    if (!entity) {
      this.unprojected.delete(id);
      return undefined;
    }
    // Without clients that read it, nobody reads the state: what one adds later is projected then.
    if (this.readers > 0) return this.patches.refresh(id, entityFields(entity));
    this.unprojected.add(id);
    return undefined;
  }

  /** Brings a client's view up to date with its view's change (`resynced`: compared whole). */
  apply(client: Client, change: ViewChange, inStep: boolean, resynced: boolean): void {
    this.sharing.update({ client, change, inStep, resynced });
  }

  private applyToView(view: HeldView, { change, resynced }: ViewUpdate): void {
    view.listed(change, !resynced);
    for (const { id } of change.added) {
      const entity = this.projectedNow(id);
      if (entity) view.add(entity);
      else view.missed();
    }
    if (resynced) {
      for (const { id } of change.updated) {
        const entity = this.projectedNow(id);
        if (entity && view.held.get(id) !== entity) view.add(entity);
      }
    }
    for (const id of change.removed) {
      const entity = view.held.get(id);
      if (entity) view.remove(entity);
    }
  }

  /** The entity's fields as of now: projected first if they were not (see `unprojected`). */
  private projectedNow(id: string): WireEntity | undefined {
    const current = this.unprojected.delete(id) ? undefined : this.patches.entity(id);
    if (current) return current;
    const entity = this.world.entity(id);
    return entity && this.patches.refresh(id, entityFields(entity));
  }
}
