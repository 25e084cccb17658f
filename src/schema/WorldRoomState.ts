import { Encoder, MapSchema, Schema, type } from "@colyseus/schema";
import type { WorldEntity } from "../game/world-types.js";

// A full state or a patch that adds a crowded view encodes to more than the default 16 KB; encoders start
// with room for it instead of growing (and warning) on the first joins.
Encoder.BUFFER_SIZE = 64 * 1024;

/**
 * One drawable thing in the world, as the protocol's entity: a player, an NPC, a ground item or a resource.
 * The schema SDK clients decode entities with; the server encodes them itself (src/net/state-patches.ts),
 * from `entityFields`.
 */
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
}

/** The entity's fields in EntityState's field order: what SDK clients' patches carry. */
export function entityFields(entity: WorldEntity): unknown[] {
  const { position } = entity;
  return [
    entity.id,
    entity.kind,
    entity.type,
    entity.name,
    position.x,
    position.z,
    entity.health,
    entity.maxHealth,
    entity.quantity,
    entity.depleted,
  ];
}

/**
 * The replicated state. SDK clients are each told of the entities in their view as entries of
 * `entities`, which on the server stays empty (see src/net/state-patches.ts).
 */
export class WorldRoomState extends Schema {
  @type("uint32") tick = 0;
  @type({ map: EntityState }) entities = new MapSchema<EntityState>();
}
