import { type Client, ClientState, Protocol, SchemaSerializer, type Serializer } from "@colyseus/core";
import { $refId, encode, OPERATION, type Schema } from "@colyseus/schema";

/** A schema's field values, in its field order (undefined: unset). */
export type FieldValues = unknown[];

/**
 * Entity ref ids start here: below are the ref ids Colyseus gives the state's own schemas (the root and its
 * map). Ids under 65,536 take three bytes on the wire.
 */
const FIRST_ENTITY_REF = 1024;

const SWITCH_TO_STRUCTURE = 255;

/**
 * One entity as SDK clients' decoders hold it: a ref id of its own (its map index too), its fields now,
 * and as the last patch left them, from which a patch's changes are encoded once for every view.
 */
export class WireEntity {
  /** The fields as of the last patch: what every view that held it then was sent. */
  private sent: FieldValues;
  /** The patch round this entity's bytes below were made in. */
  private round = -1;
  private full: Uint8Array | undefined;
  private change: Uint8Array | null | undefined;

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
  fullBytes(round: number): Uint8Array {
    this.enter(round);
    this.full ??= this.fields.whole(this.refId, this.values);
    return this.full;
  }

  /** Its changes since the last patch, to a view that held it (null: none). */
  changeBytes(round: number): Uint8Array | null {
    this.enter(round);
    if (this.change === undefined)
      this.change =
        this.sent === this.values ? null : this.fields.changes(this.refId, this.sent, this.values);
    return this.change;
  }

  /** Its fields now (its bytes of this patch, if made, are made again). */
  update(values: FieldValues): void {
    this.values = values;
    this.round = -1;
  }

  /** The patch is sent: its fields now are what every view holding it has. */
  settle(): void {
    this.sent = this.values;
  }

  private enter(round: number): void {
    if (this.round === round) return;
    this.round = round;
    this.full = undefined;
    this.change = undefined;
  }
}

/** An entity added to (true) or removed from a view, in the order it happened. */
interface WireOp {
  readonly entity: WireEntity;
  readonly added: boolean;
}

/** What a view's entities were listed as since its last patch: its patch holds the changes of those updated. */
export interface WireListing {
  readonly updated: readonly { readonly id: string }[];
}

/**
 * What one view's clients hold (every client reading it holds the same), and what they are still to be
 * sent of it: adds and removes, in order, and the listings whose updated entities their patch carries.
 */
export class WireView {
  readonly held: Map<string, WireEntity>;
  private ops: WireOp[] = [];
  private listings: WireListing[] = [];

  constructor(held?: ReadonlyMap<string, WireEntity>) {
    this.held = new Map(held);
  }

  /** Whether its clients hold all it holds: nothing added or removed waits for a patch. */
  get sentAll(): boolean {
    return this.ops.length === 0;
  }

  listed(listing: WireListing): void {
    this.listings.push(listing);
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
      out.byte(SWITCH_TO_STRUCTURE);
      out.number(mapRefId);
      for (const { entity, added } of ops) {
        if (added) writeMapAdd(out, entity);
        else writeMapDelete(out, entity);
      }
      for (const { entity, added } of ops)
        if (added && this.held.get(entity.key) === entity) out.bytes(entity.fullBytes(round));
    }
    // Listed since its last patch: the changes of what it holds are among what was listed as updated
    // (Interest lists every entity in view that changed); listed nowhere, it is looked for among all.
    const candidates = this.listings.length > 0 ? this.listedHeld() : changed;
    for (const entity of candidates) {
      if (this.held.get(entity.key) !== entity) continue;
      const change = entity.changeBytes(round);
      if (change) out.bytes(change);
    }
  }

  /** Writes the whole of what it holds, for a full state. */
  writeWhole(out: ByteWriter, mapRefId: number, round: number): void {
    if (this.held.size === 0) return;
    out.byte(SWITCH_TO_STRUCTURE);
    out.number(mapRefId);
    for (const entity of this.held.values()) writeMapAdd(out, entity);
    for (const entity of this.held.values()) out.bytes(entity.fullBytes(round));
  }

  private listedHeld(): WireEntity[] {
    const entities: WireEntity[] = [];
    for (const listing of this.listings) {
      for (const { id } of listing.updated) {
        const entity = this.held.get(id);
        if (entity) entities.push(entity);
      }
    }
    return entities;
  }
}

/** A map entry added: its index (the entity's ref id), its key, its ref id. */
function writeMapAdd(out: ByteWriter, entity: WireEntity): void {
  out.byte(OPERATION.ADD);
  out.number(entity.refId);
  out.string(entity.key);
  out.number(entity.refId);
}

function writeMapDelete(out: ByteWriter, entity: WireEntity): void {
  out.byte(OPERATION.DELETE);
  out.number(entity.refId);
}

/** Colyseus's encoding of one schema's fields (its field order and types, from its metadata). */
class FieldCodec {
  private readonly types: string[];
  private readonly out = new ByteWriter(1024);

  constructor(types: readonly string[]) {
    for (const type of types) {
      if (typeof PRIMITIVES[type] !== "function")
        throw new Error(`state patches: the field type ${type} is not a primitive Colyseus encodes`);
    }
    this.types = [...types];
  }

  /** A switch to the entity, then every field set. */
  whole(refId: number, now: FieldValues): Uint8Array {
    return this.encode(refId, undefined, now)!;
  }

  /**
   * A switch to the entity, then each field that differs from `before`: ADD for a field newly set,
   * REPLACE for one changed, DELETE for one unset (null: none differs, the entity changed only in what
   * SDK clients are not sent).
   */
  changes(refId: number, before: FieldValues, now: FieldValues): Uint8Array | null {
    return this.encode(refId, before, now);
  }

  private encode(refId: number, before: FieldValues | undefined, now: FieldValues): Uint8Array | null {
    const out = this.out;
    out.reset();
    out.byte(SWITCH_TO_STRUCTURE);
    out.number(refId);
    let fields = 0;
    for (let index = 0; index < now.length; index++) {
      const value = now[index];
      const previous = before?.[index];
      if (before && previous === value) continue;
      if (value === undefined) {
        if (before) {
          out.byte(index | OPERATION.DELETE);
          fields++;
        }
        continue;
      }
      fields++;
      out.byte(index | (previous === undefined ? OPERATION.ADD : OPERATION.REPLACE));
      out.value(this.types[index]!, value);
    }
    return fields > 0 || !before ? out.copy() : null;
  }
}

/** Colyseus's encoders of primitive values, by type name. */
const PRIMITIVES = encode as unknown as Record<
  string,
  (bytes: Uint8Array, value: unknown, it: { offset: number }) => void
>;

/** A growing byte buffer written with Colyseus's own primitive encoders. */
export class ByteWriter {
  private buffer: Uint8Array;
  private readonly it = { offset: 0 };

  constructor(size: number) {
    this.buffer = new Uint8Array(size);
  }

  get length(): number {
    return this.it.offset;
  }

  reset(): void {
    this.it.offset = 0;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.it.offset++] = value;
  }

  number(value: number): void {
    this.room(9);
    encode.number(this.buffer, value, this.it);
  }

  string(value: string): void {
    // At most three UTF-8 bytes a UTF-16 unit, and a length prefix of five.
    this.room(value.length * 3 + 5);
    encode.string(this.buffer, value, this.it);
  }

  value(type: string, value: unknown): void {
    if (type === "string") {
      this.string(value as string);
      return;
    }
    this.room(9);
    PRIMITIVES[type]!(this.buffer, value, this.it);
  }

  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    // A loop: for an entity's few dozen bytes, TypedArray.set's call costs more than the copy.
    const buffer = this.buffer;
    let at = this.it.offset;
    for (let i = 0; i < bytes.length; i++) buffer[at++] = bytes[i]!;
    this.it.offset = at;
  }

  /** What was written, in a buffer of its own. */
  copy(): Uint8Array {
    return this.buffer.slice(0, this.it.offset);
  }

  private room(bytes: number): void {
    if (this.it.offset + bytes <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.it.offset + bytes));
    grown.set(this.buffer.subarray(0, this.it.offset));
    this.buffer = grown;
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
  private readonly changedSet = new Set<WireEntity>();
  private nextRefId = FIRST_ENTITY_REF;
  private round = 0;
  private readonly codec: FieldCodec;
  private readonly out = new ByteWriter(64 * 1024);
  private readView: (client: Client) => WireView | undefined = () => undefined;

  constructor(
    /** The schema of the map's entries, whose fields the values given follow. */
    entrySchema: typeof Schema,
    /** The state's map of entries (empty on the server). */
    private readonly map: () => object,
  ) {
    const metadata = (
      entrySchema as unknown as { [Symbol.metadata]: Record<number, { name: string; type: unknown }> }
    )[Symbol.metadata];
    const types: string[] = [];
    for (let index = 0; metadata[index] !== undefined; index++) types.push(metadata[index]!.type as string);
    this.codec = new FieldCodec(types);
  }

  /** Which view each client reads (undefined: none, it is sent the root alone). */
  readViewsWith(viewOf: (client: Client) => WireView | undefined): void {
    this.readView = viewOf;
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
    existing.update(values);
    if (!this.changedSet.has(existing)) {
      this.changedSet.add(existing);
      this.changed.push(existing);
    }
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
    view.writeWhole(out, this.mapRefId(), this.round);
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
      if (client.state !== ClientState.JOINED) continue;
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

  /** The patch was sent, or there was nobody to send it to: every entity's fields now are its base. */
  settle(): void {
    for (const entity of this.changed) entity.settle();
    this.changed = [];
    this.changedSet.clear();
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
    const sent = clients.length > 0 && this.patches.send(clients, shared);
    if (clients.length === 0) this.patches.settle();
    this.encoder.discardChanges();
    return sent;
  }
}
