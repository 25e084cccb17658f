import { type Client, ClientState, Protocol, SchemaSerializer, type Serializer } from "@colyseus/core";
import { $refId, type Schema } from "@colyseus/schema";
import { ByteWriter, FieldCodec, type FieldValues } from "./wire-bytes.js";

/**
 * Entity ref ids start here: below are the ref ids Colyseus gives the state's own schemas (the root and its
 * map). Ids under 65,536 take three bytes on the wire.
 */
const FIRST_ENTITY_REF = 1024;

/**
 * One entity as SDK clients' decoders hold it: a ref id of its own (its map index too), its fields now,
 * and as the last patch left them, from which a patch's changes are encoded once for every view.
 */
export class WireEntity {
  /** The fields as of the last patch: what every view that held it then was sent. */
  private sent: FieldValues;
  /** Its fields now, whole: kept until they change. */
  private full: Uint8Array | undefined;
  /** The patch round its change below was made in. */
  private round = -1;
  private change: Uint8Array | null | undefined;
  /** Its entry's addition to the map and removal from it: the same in every patch. */
  private addition: Uint8Array | undefined;
  private removal: Uint8Array | undefined;

  constructor(
    readonly refId: number,
    /** Its id: the map key clients read it by. */
    readonly key: string,
    /** Its fields now. */
    private values: FieldValues,
    private readonly fields: FieldCodec,
  ) {
    this.sent = values;
  }

  /** The entity as a view that did not hold it is sent it: a switch to it, and every field set. */
  fullBytes(): Uint8Array {
    this.full ??= this.fields.whole(this.refId, this.values);
    return this.full;
  }

  /** Its changes since the last patch, to a view that held it (null: none). */
  changeBytes(round: number): Uint8Array | null {
    if (this.round !== round) {
      this.round = round;
      this.change =
        this.sent === this.values ? null : this.fields.changes(this.refId, this.sent, this.values);
    }
    return this.change!;
  }

  /** Its entry added to the map (after a switch to the map). */
  additionBytes(): Uint8Array {
    this.addition ??= this.fields.mapAdd(this.refId, this.key);
    return this.addition;
  }

  /** Its entry removed from the map (after a switch to the map). */
  removalBytes(): Uint8Array {
    this.removal ??= this.fields.mapDelete(this.refId);
    return this.removal;
  }

  /** Its fields now (its bytes of this patch, if made, are made again); false: they had changed already. */
  update(values: FieldValues): boolean {
    const first = this.sent === this.values;
    this.values = values;
    this.full = undefined;
    this.round = -1;
    return first;
  }

  /** The patch is sent: its fields now are what every view holding it has. */
  settle(): void {
    this.sent = this.values;
  }
}

/** An entity added to (true) or removed from a view, in the order it happened. */
interface WireOp {
  readonly entity: WireEntity;
  readonly added: boolean;
}

/** An entity a listing names: its id, and its wire object when it was projected as it changed. */
export interface WireListed {
  readonly id: string;
  readonly payload?: { readonly wire: WireEntity | undefined } | undefined;
}

/** What a view's entities were listed as since its last patch: its patch holds the changes of those updated. */
export interface WireListing {
  readonly updated: readonly WireListed[];
}

/**
 * What one view's clients hold (every client reading it holds the same), and what they are still to be
 * sent of it: adds and removes, in order, and the listings whose updated entities their patch carries.
 */
export class WireView {
  readonly held: Map<string, WireEntity>;
  private ops: WireOp[] = [];
  private listings: WireListing[] = [];
  /** Its one listing updated only entities it holds, as they are now (see `listed`). */
  private exact = false;
  /** An entity listed to it as added could not be given it: a later listing may name what it lacks. */
  private lacks: boolean;

  constructor(from?: WireView) {
    this.held = new Map(from?.held);
    this.lacks = from?.lacks ?? false;
  }

  /** Whether its clients hold all it holds: nothing added or removed waits for a patch. */
  get sentAll(): boolean {
    return this.ops.length === 0;
  }

  /**
   * `exact`: the listing follows on from what the view holds (not compared whole), so that every entity
   * it lists as updated is held, as the wire object its listing carries: the patch then writes their
   * changes without looking each up.
   */
  listed(listing: WireListing, exact: boolean): void {
    this.exact = exact && !this.lacks && this.listings.length === 0;
    this.listings.push(listing);
  }

  /** An entity listed as added could not be given it (it had left the world meanwhile). */
  missed(): void {
    this.lacks = true;
  }

  /** Adds the entity (sent whole again if held: its fields may have changed unlisted). */
  add(entity: WireEntity): void {
    const before = this.held.get(entity.key);
    if (before && before !== entity) this.remove(before);
    this.held.set(entity.key, entity);
    this.ops.push({ entity, added: true });
  }

  remove(entity: WireEntity): void {
    if (this.held.get(entity.key) !== entity) return;
    this.held.delete(entity.key);
    this.ops.push({ entity, added: false });
  }

  /** Its clients were sent everything (a patch, or the state whole). */
  sent(): void {
    if (this.ops.length > 0) this.ops = [];
    if (this.listings.length > 0) this.listings = [];
  }

  /** Writes the view's part of a patch: its adds and removes, then its entities' changes. */
  writePatch(out: ByteWriter, mapRefId: number, round: number, changed: readonly WireEntity[]): void {
    const { ops } = this;
    if (ops.length > 0) {
      out.switchTo(mapRefId);
      for (const { entity, added } of ops) out.bytes(added ? entity.additionBytes() : entity.removalBytes());
      for (const { entity, added } of ops)
        if (added && this.held.get(entity.key) === entity) out.bytes(entity.fullBytes());
    }
    // Listed since its last patch: the changes of what it holds are among what was listed as updated
    // (Interest lists every entity in view that changed); listed nowhere, it is looked for among all.
    if (this.listings.length === 0) {
      for (const entity of changed) this.writeChange(out, entity.key, round);
      return;
    }
    if (this.exact) {
      for (const listed of this.listings[0]!.updated) {
        const wire = listed.payload?.wire;
        const change = wire ? wire.changeBytes(round) : this.held.get(listed.id)?.changeBytes(round);
        if (change) out.bytes(change);
      }
      return;
    }
    for (const listing of this.listings)
      for (const { id } of listing.updated) this.writeChange(out, id, round);
  }

  /** Writes the whole of what it holds, for a full state. */
  writeWhole(out: ByteWriter, mapRefId: number): void {
    if (this.held.size === 0) return;
    out.switchTo(mapRefId);
    for (const entity of this.held.values()) out.bytes(entity.additionBytes());
    for (const entity of this.held.values()) out.bytes(entity.fullBytes());
  }

  private writeChange(out: ByteWriter, key: string, round: number): void {
    const change = this.held.get(key)?.changeBytes(round);
    if (change) out.bytes(change);
  }
}

/**
 * The SDK clients' state patches, encoded by the server rather than through Colyseus's StateViews: each
 * entity's bytes are made once a patch (whole, and its changes) and each view's patch is its adds and
 * removes followed by those bytes, as the /ws updates are assembled from each entity's JSON. The wire
 * format is Colyseus's own, decoded by the unchanged SDK (docs/architecture.md, "State patches").
 *
 * The replicated entities are not Colyseus schema instances: the state's entity map stays empty on the
 * server, and each client's decoder is told of the entities in its view as entries of that map.
 */
export class StatePatches {
  private readonly entities = new Map<string, WireEntity>();
  /** Entities whose fields changed since the last patch. */
  private changed: WireEntity[] = [];
  private nextRefId = FIRST_ENTITY_REF;
  private round = 0;
  private readonly codec: FieldCodec;
  private readonly out = new ByteWriter(64 * 1024);
  private readView: (client: Client) => WireView | undefined = () => undefined;
  private readsNoState: (client: Client) => boolean = () => false;

  constructor(
    /** The schema of the map's entries, whose fields the values given follow. */
    entrySchema: typeof Schema,
    /** The state's map of entries (empty on the server). */
    private readonly map: () => object,
  ) {
    this.codec = new FieldCodec(entrySchema);
  }

  /**
   * Which view each client reads (undefined: none, it is sent the root alone), and which clients read
   * no state at all (the /ws channel's): those are not sent its patches.
   */
  readViewsWith(
    viewOf: (client: Client) => WireView | undefined,
    readsNoState: (client: Client) => boolean = () => false,
  ): void {
    this.readView = viewOf;
    this.readsNoState = readsNoState;
  }

  viewOf(client: Client): WireView | undefined {
    return this.readView(client);
  }

  entity(key: string): WireEntity | undefined {
    return this.entities.get(key);
  }

  /** The entity's fields now; the views that hold it are sent what changed at the next patch. */
  refresh(key: string, values: FieldValues): WireEntity {
    const existing = this.entities.get(key);
    if (!existing) {
      const created = new WireEntity(this.nextRefId++, key, values, this.codec);
      this.entities.set(key, created);
      return created;
    }
    if (existing.update(values)) this.changed.push(existing);
    return existing;
  }

  /** The entity left: views holding it still remove it by its ref id; one that comes back is new. */
  retire(key: string): void {
    this.entities.delete(key);
  }

  /** The serializer of a room whose state's entries are these (Colyseus's, with these patches). */
  serializer<T extends Schema>(): Serializer<T> {
    return new PatchingSerializer<T>(this) as unknown as Serializer<T>;
  }

  /** The full state's part for the client: everything its view holds. */
  wholeFor(client: Client, root: Uint8Array): Uint8Array {
    const view = this.viewOf(client);
    if (!view) return root;
    view.sent();
    if (view.held.size === 0) return root;
    const out = this.out;
    out.reset();
    out.bytes(root);
    view.writeWhole(out, this.mapRefId());
    return out.copy();
  }

  /**
   * Sends each joined client its patch: the state's own changes (`shared`, with its protocol byte; none
   * when nothing changed) and its view's part, made once for all the clients of a view.
   */
  send(clients: readonly Client[], shared: Uint8Array | undefined): boolean {
    const mapRefId = this.mapRefId();
    const byView = new Map<WireView, Uint8Array | undefined>();
    let sentAny = false;
    for (const client of clients) {
      if (client.state !== ClientState.JOINED || this.readsNoState(client)) continue;
      const view = this.viewOf(client);
      let patch: Uint8Array | undefined = shared;
      if (view) {
        if (byView.has(view)) {
          patch = byView.get(view);
        } else {
          patch = this.patchOf(view, mapRefId, shared);
          byView.set(view, patch);
        }
      }
      if (!patch) continue;
      client.raw(patch);
      sentAny = true;
    }
    for (const view of byView.keys()) view.sent();
    this.settle();
    return sentAny;
  }

  /** The patch was sent: every entity's fields now are its base. */
  private settle(): void {
    for (const entity of this.changed) entity.settle();
    this.changed = [];
    this.round++;
  }

  private patchOf(view: WireView, mapRefId: number, shared: Uint8Array | undefined): Uint8Array | undefined {
    const out = this.out;
    out.reset();
    if (shared) out.bytes(shared);
    else out.byte(Protocol.ROOM_STATE_PATCH);
    const start = out.length;
    view.writePatch(out, mapRefId, this.round, this.changed);
    if (out.length === start) return shared;
    return out.copy();
  }

  private mapRefId(): number {
    return (this.map() as unknown as { [$refId]: number })[$refId];
  }
}

/** Colyseus's schema serializer for the state's own fields, with each view's entities sent by StatePatches. */
class PatchingSerializer<T extends Schema> extends SchemaSerializer<T> {
  constructor(private readonly patches: StatePatches) {
    super();
  }

  override getFullState(client?: Client): Uint8Array {
    const root = super.getFullState(client);
    return client ? this.patches.wholeFor(client, root) : root;
  }

  override applyPatches(clients: Client[]): boolean {
    let shared: Uint8Array | undefined;
    if (this.encoder.hasChanges) {
      // The full state is encoded anew once the state changed.
      this.needFullEncode = true;
      this.encoder.sharedBuffer[0] = Protocol.ROOM_STATE_PATCH;
      shared = this.encoder.encode({ offset: 1 });
    }
    const sent = this.patches.send(clients, shared);
    this.encoder.discardChanges();
    return sent;
  }
}
