import { Encoder, MapSchema, Schema, type, view } from "@colyseus/schema";
import type { WorldEntity } from "../game/world-types.js";

// A player's view of a crowded world encodes to more than the default 16 KB; encoders start with room
// for it instead of growing (and warning) on the first joins.
Encoder.BUFFER_SIZE = 64 * 1024;

/** One drawable thing in the world, as the protocol's entity: a player, an NPC, a ground item or a resource. */
export class EntityState extends Schema {
  @type("string") id = "";
  @type("string") kind = "";
  @type("string") type = "";
  @type("string") name = "";
  @type("int32") x = 0;
  @type("int32") z = 0;
  @type("int32") health?: number;
  @type("int32") maxHealth?: number;
  @type("int32") quantity?: number;
  @type("boolean") depleted?: boolean;

  /** Copies the entity's drawable fields; unchanged values are not re-sent by the encoder. */
  copyFrom(entity: WorldEntity): this {
    this.id = entity.id;
    this.kind = entity.kind;
    this.type = entity.type;
    this.name = entity.name;
    this.x = entity.position.x;
    this.z = entity.position.z;
    this.health = entity.health;
    this.maxHealth = entity.maxHealth;
    this.quantity = entity.quantity;
    this.depleted = entity.depleted;
    return this;
  }
}

/**
 * The replicated projection of the world. Entities are view-filtered: an SDK client receives only the
 * ones the room adds to its StateView (those within view distance).
 */
export class WorldRoomState extends Schema {
  @type("uint32") tick = 0;
  @view() @type({ map: EntityState }) entities = new MapSchema<EntityState>();
}
