import { SchemaSerializer, type Serializer } from "@colyseus/core";
import {
  $changes,
  type ChangeTree,
  type Encoder,
  type Iterator,
  type Schema,
  type StateView,
} from "@colyseus/schema";

/** The encoder's queue of the trees changed since the last patch, in the order they must be sent. */
type ChangeQueue = Encoder["root"]["changes"];
type QueueNode = NonNullable<ChangeQueue["next"]>;

/** What a client's update lists: the entities whose changes its patch may hold. */
export interface ScopedChange {
  readonly added: readonly { readonly id: string }[];
  readonly updated: readonly { readonly id: string }[];
}

/**
 * Narrows each SDK client's state patch to the changes it can see, and encodes each changed entity once
 * for all the clients that see it.
 *
 * Colyseus encodes a client's patch by walking every tree changed since the last patch and testing each
 * against the client's StateView: with 2,000 players moving, 2,000 clients make some 4 million tests a
 * tick, most of them for entities far away. The room's view index already knows which changed entities
 * each client sees (the added and updated of its update). So the encoder is handed, per client, those
 * entities' trees plus every changed tree the index does not account for (the state's root and its map,
 * entities changed outside the tick), in the queue's order. The visibility test still runs on each, so a
 * client is sent exactly what the whole walk would send it; a client with no scope gets the whole walk.
 *
 * A tree whose fields carry no view tag encodes to the same bytes for every view that sees it; each
 * such tree is encoded once a patch and copied into the patches of the other views (see TreeBytes).
 */
export class PatchScopes {
  /** Entities changed by the tick being published, with their trees: every view that sees one lists it. */
  private covered = new Map<string, ChangeTree>();
  /** Each StateView's listed entities, since the tick began. */
  private readonly scopes = new Map<StateView, ScopedChange>();
  /** The trees to encode for each listing, in queue order. */
  private orders = new WeakMap<ScopedChange, readonly QueueNode[]>();
  /** This patch's queue by position, and the positions no listing accounts for (made at its first scoped encode). */
  private queue: { nodeAt: QueueNode[]; unlisted: Int32Array } | undefined;
  /** A listing's trees' queue positions, sorted as numbers: faster than sorting the nodes with a comparator. */
  private positions = new Int32Array(1024);
  readonly treeBytes = new TreeBytes();

  /**
   * Forgets every listing: when a tick's changes are taken in (listings made before no longer account for
   * the queue) and once a patch is sent (the queue is emptied).
   */
  clear(): void {
    this.covered.clear();
    this.scopes.clear();
    this.orders = new WeakMap();
    this.queue = undefined;
    this.treeBytes.clear();
  }

  /** The tick changed this entity and its replicated state: each client that sees it lists it. */
  cover(id: string, replicated: Schema): void {
    const tree = replicated[$changes];
    if (tree) this.covered.set(id, tree);
  }

  /** Records what a view was given this tick: its patch holds no other entity's changes. */
  scope(view: StateView, change: ScopedChange): void {
    this.scopes.set(view, change);
  }

  /** The changed trees to encode `view`'s patch from, in queue order (undefined: the whole queue). */
  treesFor(view: StateView, all: ChangeQueue): readonly QueueNode[] | undefined {
    const change = this.scopes.get(view);
    if (!change) return undefined;
    let order = this.orders.get(change);
    if (!order) {
      order = this.build(change, all);
      this.orders.set(change, order);
    }
    return order;
  }

  private build(change: ScopedChange, all: ChangeQueue): QueueNode[] {
    this.queue ??= this.indexed(all);
    const queue = this.queue;
    const most = change.added.length + change.updated.length + queue.unlisted.length;
    if (this.positions.length < most) this.positions = new Int32Array(most * 2);
    let count = 0;
    for (const list of [change.added, change.updated]) {
      for (const { id } of list) {
        const node = this.covered.get(id)?.changesNode;
        // Only a tree in the queue being sent: the walk over the queue would encode no other.
        if (node && queue.nodeAt[node.position] === node) this.positions[count++] = node.position;
      }
    }
    this.positions.set(queue.unlisted, count);
    count += queue.unlisted.length;
    const sorted = this.positions.subarray(0, count).sort();
    const trees: QueueNode[] = [];
    for (let i = 0; i < count; i++) {
      // An entity listed both as added and as updated is one tree.
      if (i === 0 || sorted[i] !== sorted[i - 1]) trees.push(queue.nodeAt[sorted[i]!]!);
    }
    return trees;
  }

  private indexed(all: ChangeQueue): { nodeAt: QueueNode[]; unlisted: Int32Array } {
    const coveredTrees = new Set(this.covered.values());
    const nodeAt: QueueNode[] = [];
    const unlisted: number[] = [];
    for (let node = all.next; node; node = node.next) {
      nodeAt[node.position] = node;
      if (!coveredTrees.has(node.changeTree)) unlisted.push(node.position);
    }
    return { nodeAt, unlisted: Int32Array.from(unlisted) };
  }
}

/**
 * The view-pass bytes of the trees encoded so far in this patch whose bytes do not depend on the view.
 * Such a tree is a schema with no view-tagged field (Colyseus then gives it no field filter): the view
 * pass writes its switch, its ref id and each of its changed fields, whichever view sees it.
 */
class TreeBytes {
  private readonly bytes = new Map<ChangeTree, Uint8Array>();
  private arena: Uint8Array = new Uint8Array(ARENA_BYTES);
  private used = 0;

  clear(): void {
    this.bytes.clear();
    this.used = 0;
  }

  /**
   * The tree's bytes, written by `encodeAlone` at the first call of this patch (into `buffer` from
   * `it.offset`, or into the larger buffer it returns); undefined: they depend on the view.
   */
  of(
    tree: ChangeTree,
    encodeAlone: (buffer: Uint8Array, it: Iterator) => Uint8Array,
  ): Uint8Array | undefined {
    if (tree.encDescriptor.filter !== undefined) return undefined;
    let encoded = this.bytes.get(tree);
    if (!encoded) {
      // A fresh arena rather than a grown one: the bytes kept so far stay where they are.
      if (this.arena.length - this.used < ARENA_HEADROOM) {
        this.arena = new Uint8Array(ARENA_BYTES);
        this.used = 0;
      }
      const it = { offset: this.used };
      this.arena = encodeAlone(this.arena, it);
      encoded = this.arena.subarray(this.used, it.offset);
      this.used = it.offset;
      this.bytes.set(tree, encoded);
    }
    return encoded;
  }
}

/** Room for some 4,000 entities' changes per arena; a tree's bytes start with this much free at least. */
const ARENA_BYTES = 256 * 1024;
const ARENA_HEADROOM = 16 * 1024;

/** The encoder's own method that grows the buffer a patch is written to (protected in its types). */
type GrowableEncoder = Encoder & { ensureCapacity(buffer: Uint8Array, offset: number): Uint8Array };

/**
 * Makes `encoder` (the world state's) encode a view's patch from the trees its scope gives (see
 * PatchScopes) instead of every change of the tick. Its methods are replaced on the instance, which
 * Colyseus's own `SchemaSerializer.reset` made: the serializer keeps setting itself up with the
 * installed code (test/net/internals.test.ts checks what these replacements rely on).
 */
function scopeEncoder(encoder: Encoder, scopes: PatchScopes): void {
  const encode = encoder.encode;
  const encodeView = encoder.encodeView;
  const discardChanges = encoder.discardChanges;
  /** A queue of one tree, for Colyseus's encode of that tree alone. */
  const alone: QueueNode = {
    changeTree: undefined as unknown as ChangeTree,
    position: 0,
    prev: undefined,
    next: undefined,
  };
  const aloneQueue: ChangeQueue = { next: alone, tail: alone, nextPosition: 0 };

  function encodeAlone(
    self: Encoder,
    node: QueueNode,
    it: Iterator,
    view: StateView,
    bytes: Uint8Array,
  ): Uint8Array {
    const all = self.root.changes;
    alone.changeTree = node.changeTree;
    alone.position = node.position;
    self.root.changes = aloneQueue;
    try {
      const written = encode.call(self, it, view, bytes);
      return written.buffer === bytes.buffer ? bytes : new Uint8Array(written.buffer);
    } finally {
      self.root.changes = all;
    }
  }

  encoder.encode = function (
    this: Encoder,
    it: Iterator,
    view?: StateView,
    buffer: Uint8Array = this.sharedBuffer,
    initialOffset?: number,
  ): Uint8Array {
    // Trees whose filters wait to be refreshed are left to the whole walk, which refreshes them first.
    const trees =
      view && this.root.pendingFilterRefresh.length === 0
        ? scopes.treesFor(view, this.root.changes)
        : undefined;
    if (!view || !trees) return encode.call(this, it, view, buffer, initialOffset);
    let bytes = buffer;
    for (const node of trees) {
      const tree = node.changeTree;
      if (!view.isChangeTreeVisible(tree)) continue;
      const same = scopes.treeBytes.of(tree, (arena, arenaIt) =>
        encodeAlone(this, node, arenaIt, view, arena),
      );
      if (!same) {
        bytes = encodeAlone(this, node, it, view, bytes);
        continue;
      }
      if (it.offset + same.length > bytes.length)
        bytes = (this as GrowableEncoder).ensureCapacity(bytes, it.offset);
      // A loop: for a tree's few dozen bytes, TypedArray.set's call costs more than the copy.
      let at = it.offset;
      for (let i = 0; i < same.length; i++) bytes[at++] = same[i]!;
      it.offset = at;
    }
    return bytes.subarray(0, it.offset);
  };

  encoder.encodeView = function (
    this: Encoder,
    view: StateView,
    sharedOffset: number,
    _it: Iterator,
    bytes?: Uint8Array,
  ): Uint8Array {
    // Each view's patch is written just past the shared part, over the previous one (which Colyseus has
    // copied out by then): on the round's own iterator they would follow one another, and the encoder's
    // buffer would grow to hold every client's patch at once, copied whole at each growth.
    return encodeView.call(this, view, sharedOffset, { offset: sharedOffset }, bytes);
  };

  encoder.discardChanges = function (this: Encoder): void {
    discardChanges.call(this);
    scopes.clear();
  };
}

/** Colyseus's schema serializer, whose encoder encodes each client's patch from its scope. */
class ScopedSchemaSerializer<T extends Schema> extends SchemaSerializer<T> {
  constructor(private readonly scopes: PatchScopes) {
    super();
  }

  override reset(state: T): void {
    super.reset(state);
    scopeEncoder(this.encoder, this.scopes);
  }
}

/**
 * The serializer a room with `scopes` encodes its state with: Colyseus's schema serializer (which
 * `made` is, once the room sets its state) with scoped patches; any other serializer as it is.
 */
export function scopeSchemaSerializer<T>(made: Serializer<T>, scopes: PatchScopes): Serializer<T> {
  return made instanceof SchemaSerializer
    ? (new ScopedSchemaSerializer(scopes) as unknown as Serializer<T>)
    : made;
}
