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
 * Narrows each SDK client's state patch to the changes it can see.
 *
 * Colyseus encodes a client's patch by walking every tree changed since the last patch and testing each
 * against the client's StateView: with 2,000 players moving, 2,000 clients make some 4 million tests a
 * tick, most of them for entities far away. The room's view index already knows which changed entities
 * each client sees (the added and updated of its update). So the encoder is handed, per client, those
 * entities' trees plus every changed tree the index does not account for (the state's root and its map,
 * entities changed outside the tick), in the queue's order. The visibility test still runs on each, so a
 * client is sent exactly what the whole walk would send it; a client with no scope gets the whole walk.
 */
export class PatchScopes {
  /** Entities changed by the tick being published, with their trees: every view that sees one lists it. */
  private covered = new Map<string, ChangeTree>();
  /** Each StateView's listed entities, since the tick began. */
  private readonly scopes = new Map<StateView, ScopedChange>();
  /** The queue built for each listing. */
  private queues = new WeakMap<ScopedChange, ChangeQueue>();
  /** This patch's changed trees that no listing accounts for, in queue order (built at its first scoped encode). */
  private unlisted: QueueNode[] | undefined;

  /**
   * Forgets every listing: when a tick's changes are taken in (listings made before no longer account for
   * the queue) and once a patch is sent (the queue is emptied).
   */
  clear(): void {
    this.covered.clear();
    this.scopes.clear();
    this.queues = new WeakMap();
    this.unlisted = undefined;
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

  /** The queue to encode `view`'s patch from: its listed trees and the unlisted ones (undefined: the whole queue). */
  queueFor(view: StateView, all: ChangeQueue): ChangeQueue | undefined {
    const change = this.scopes.get(view);
    if (!change) return undefined;
    let queue = this.queues.get(change);
    if (!queue) {
      queue = this.build(change, all);
      this.queues.set(change, queue);
    }
    return queue;
  }

  private build(change: ScopedChange, all: ChangeQueue): ChangeQueue {
    const listed: QueueNode[] = [];
    for (const list of [change.added, change.updated]) {
      for (const { id } of list) {
        const node = this.covered.get(id)?.changesNode;
        if (node) listed.push(node);
      }
    }
    listed.sort(byPosition);
    this.unlisted ??= this.unlistedIn(all);
    return linked(mergeByPosition(listed, this.unlisted));
  }

  private unlistedIn(all: ChangeQueue): QueueNode[] {
    const coveredTrees = new Set(this.covered.values());
    const unlisted: QueueNode[] = [];
    for (let node = all.next; node; node = node.next) {
      if (!coveredTrees.has(node.changeTree)) unlisted.push(node);
    }
    return unlisted;
  }
}

function byPosition(a: QueueNode, b: QueueNode): number {
  return a.position - b.position;
}

/** The two sorted lists as one, in queue order, each node once. */
function mergeByPosition(a: readonly QueueNode[], b: readonly QueueNode[]): QueueNode[] {
  const merged: QueueNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]!.position <= b[j]!.position) ? a[i++]! : b[j++]!;
    if (merged[merged.length - 1] !== next) merged.push(next);
  }
  return merged;
}

/** A queue of its own over the given trees: the encoder's nodes stay linked in the encoder's queue. */
function linked(nodes: readonly QueueNode[]): ChangeQueue {
  const queue: ChangeQueue = { next: undefined, tail: undefined, nextPosition: 0 };
  let last: QueueNode | undefined;
  for (const { changeTree, position } of nodes) {
    const node: QueueNode = { changeTree, position, prev: last, next: undefined };
    if (last) last.next = node;
    else queue.next = node;
    last = node;
  }
  queue.tail = last;
  return queue;
}

/**
 * Makes `encoder` (the world state's) encode a view's patch from the queue its scope gives (see
 * PatchScopes) instead of every change of the tick. Its
 * methods are replaced on the instance, which Colyseus's own `SchemaSerializer.reset` made: the
 * serializer keeps setting itself up with the installed code (test/net/internals.test.ts checks
 * what these replacements rely on).
 */
function scopeEncoder(encoder: Encoder, scopes: PatchScopes): void {
  const encode = encoder.encode;
  const encodeView = encoder.encodeView;
  const discardChanges = encoder.discardChanges;

  encoder.encode = function (
    this: Encoder,
    it: Iterator,
    view?: StateView,
    buffer?: Uint8Array,
    initialOffset?: number,
  ): Uint8Array {
    const all = this.root.changes;
    const scoped = view && scopes.queueFor(view, all);
    if (!scoped) return encode.call(this, it, view, buffer, initialOffset);
    this.root.changes = scoped;
    try {
      return encode.call(this, it, view, buffer, initialOffset);
    } finally {
      this.root.changes = all;
    }
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
