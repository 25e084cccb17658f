// The depleted resources an agent has seen, and when each comes back: out of view it still knows them,
// so it does not walk back to a depleted group only because that group left its view.
import type { GameData } from "../game/types.js";
import type { WorldEntity } from "../game/world-types.js";
import { placeKey } from "./planners/places.js";

export class DepletedPlaces {
  /** The world tick each place's resource comes back on, at the latest, by place (see placeKey). */
  private readonly back = new Map<string, number>();

  constructor(private readonly data: GameData) {}

  /** An entity as a world:update of tick `tick` described it. */
  saw(entity: WorldEntity, tick: number): void {
    if (entity.kind !== "resource") return;
    const key = placeKey(entity.position);
    if (!entity.depleted) {
      this.back.delete(key);
      return;
    }
    // First seen depleted (or again, after its return): it respawns a fixed time after it depleted.
    const known = this.back.get(key);
    if (known !== undefined && known > tick) return;
    this.back.set(key, tick + (this.data.gathering.get(entity.type)?.respawnTicks ?? 0));
  }

  comesBack(): ReadonlyMap<string, number> {
    return this.back;
  }
}
