// What a client's view is sent: the entities a world:update lists, each with its JSON made once when it
// changes, and the update encoded from them (JSON for /ws, msgpack for SDK clients that read messages).
// Interest decides what each view is sent; this is how it is written down.
import type { Client } from "@colyseus/core";
import type { CrowdChoice } from "../game/crowd-choices.js";
import type { Cell, TrackedEntity, ViewDiff } from "../game/view-index.js";
import type { World } from "../game/world.js";
import type { WorldEntity } from "../game/world-types.js";
import type { WireEntity } from "../net/state-patches.js";
import { type EncodedUpdate, encodedUpdate } from "../protocol/encoded-json.js";
import { packEntity, packWorldUpdate } from "../protocol/packed-update.js";

/** What one client has been sent. */
export interface ClientView {
  client: Client;
  /** The player whose surroundings it is sent. */
  readonly playerId: string;
  /** The cell its view was last brought up to date from (NO_CELL: nothing sent yet). */
  cell: Cell;
  /** The tick of that update. */
  tick: number;
  /**
   * Every entity it was sent and not told of leaving, kept one by one only while it is out of step with
   * its cell (its own player pending, owner-only items held, a tick missed). In step (undefined) that is
   * exactly what its cell saw at `tick`, which the view index can list: keeping a set per client would
   * be most of the cost of the views in a crowded world.
   */
  known: Set<string> | undefined;
  /** Its player's owner-only items among them. */
  readonly privateKnown: Set<string>;
  /**
   * While more players than the cap stand in its view: the choice of players it was shown at `tick` (see
   * crowd-choices.ts), its own player shown as well. Every client shown the same choice holds the same
   * players, its own aside, and is told the same.
   */
  choice: CrowdChoice<TrackedEntity<EntityPayload>> | undefined;
  /** Its own player is among the players of `choice` (asked once, when it is shown the choice). */
  selfChosen: boolean;
  /** It reads its view from the schema state, rather than from world:update. */
  readonly readsState: boolean;
  /** Its own player was sent before the index placed it: the index will list it as new. */
  selfPending: boolean;
  /**
   * It reads world:update and reconnected: its next update lists everything in view as added (see
   * Interest.reattach).
   */
  restart: boolean;
}

/**
 * An entity as views send it: its JSON, made when it changes, and its msgpack, made the first time an
 * SDK client that reads world:update messages is sent it.
 */
export class EntityPayload {
  private packed: Buffer | undefined;

  constructor(
    readonly json: string,
    private readonly entity: WorldEntity,
    /** Its state for SDK clients that read it, when any did as it changed. */
    readonly wire: WireEntity | undefined,
  ) {}

  get msgpack(): Buffer {
    this.packed ??= packEntity(this.entity);
    return this.packed;
  }
}

/** An entity a world:update lists: its id, and how it is sent once the view index holds it. */
export interface Listed {
  readonly id: string;
  readonly payload?: EntityPayload | undefined;
}

/** One client's world:update: the entities added and updated, the ids removed. */
export interface ViewChange {
  added: Listed[];
  updated: Listed[];
  removed: string[];
}

/** The view index as the room keeps it: with each entity's payload, made when it changes. */
export type EntityDiff = ViewDiff<EntityPayload>;

/**
 * The protocol's world:update, assembled from each entity's cached JSON. Text, not bytes: an entity that
 * changes costs no buffer of its own each tick, and a publish writes the update's UTF-8 straight into
 * the frame it sends (EncodedJson.framedIn). SDK clients' msgpack is assembled the same way, if asked.
 */
export function encodeViewChange(
  world: World,
  tick: number,
  { added, updated, removed }: ViewChange,
): EncodedUpdate {
  return encodedUpdate(
    `{"tick":${tick},"added":[${entitiesJson(world, added)}],"updated":[${entitiesJson(world, updated)}],"removed":${JSON.stringify(removed)}}`,
    (head) =>
      packWorldUpdate(head, tick, entitiesMsgpack(world, added), entitiesMsgpack(world, updated), removed),
  );
}

/** The entities' JSON, comma-separated: the inside of a JSON array. */
function entitiesJson(world: World, entities: readonly Listed[]): string {
  let list = "";
  for (let i = 0; i < entities.length; i++) {
    const entity = entities[i]!;
    // Only a player that joined since the last tick is not in the index yet.
    const json = entity.payload?.json ?? JSON.stringify(world.entity(entity.id) ?? null);
    list = i === 0 ? json : `${list},${json}`;
  }
  return list;
}

/** The entities' msgpack, each packed once however many updates list it. */
function entitiesMsgpack(world: World, entities: readonly Listed[]): Buffer[] {
  return entities.map((entity) => entity.payload?.msgpack ?? packEntity(world.entity(entity.id) ?? null));
}

/**
 * A difference as this client must get it: what it already has is updated rather than added (its own
 * player after its join, its own item turned public), and what it never had is not removed.
 */
export function reconcile(known: ReadonlySet<string>, change: ViewChange): ViewChange {
  let fits = true;
  for (const entity of change.added) if (known.has(entity.id)) fits = false;
  for (const id of change.removed) if (!known.has(id)) fits = false;
  if (fits) return change;
  return {
    added: change.added.filter((entity) => !known.has(entity.id)),
    updated: [...change.updated, ...change.added.filter((entity) => known.has(entity.id))],
    removed: change.removed.filter((id) => known.has(id)),
  };
}
