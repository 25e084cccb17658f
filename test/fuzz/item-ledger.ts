// What the fuzz test's count of items allows for: items that leave the count other than through the
// players' hands. Ground items despawn a while after they fell (DESPAWN_TICKS): those that do during a
// run are gone, not lost.
import type { World } from "../../src/game/world.js";
import type { WorldState } from "../../src/game/world-state.js";

export class ItemLedger {
  /** Units of each item that came into the count during the run, less those that left it. */
  readonly flows = new Map<string, number>();
  private readonly state: WorldState;

  /** Watches the world from now on. */
  constructor(world: World) {
    const state = (world as unknown as { state: WorldState }).state;
    this.state = state;
    const ground = state.groundItems;
    const advance = ground.advance.bind(ground);
    ground.advance = (tick, onPublic, onDespawn) =>
      advance(tick, onPublic, (item) => {
        this.flow(item.itemId, -item.quantity);
        onDespawn(item);
      });
  }

  /** Stops watching (again does nothing). */
  stop(): void {
    Reflect.deleteProperty(this.state.groundItems, "advance");
  }

  private flow(itemId: string, units: number): void {
    this.flows.set(itemId, (this.flows.get(itemId) ?? 0) + units);
  }
}
