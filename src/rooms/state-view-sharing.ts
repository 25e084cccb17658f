// SDK clients that hold the same entities share one StateView: the room brings it up to date once, and
// Colyseus encodes its patch once for all of them (docs/architecture.md, "Shared StateViews").
import { type Client, ClientState } from "@colyseus/core";
import { $changes, StateView } from "@colyseus/schema";
import type { EntityState } from "../schema/WorldRoomState.js";
import type { ViewChange } from "./client-views.js";

/** At most this many released StateViews are kept for reuse; the rest are disposed of. */
const SPARE_VIEWS = 256;

/** A StateView and the entities it holds: every client on it holds exactly those. */
export class HeldView {
  /** What the view makes visible, by entity id (an entity that left the world stays until listed as removed). */
  readonly held = new Map<string, EntityState>();
  /** The sessions on it. */
  users = 0;
  /** The listing applied to it this tick, under which clients in step join it. */
  listedAs: ViewChange | undefined;

  constructor(readonly view: StateView) {}
}

/** One client's view change, as StateViews.apply is given it. */
export interface ViewUpdate {
  readonly client: Client;
  readonly change: ViewChange;
  /**
   * It held, before this change, what every client given the same listing held: the view index's shared
   * difference, made by every client that stood in the same cell and moved to the same one.
   */
  readonly inStep: boolean;
  /** Compared whole with what its client was sent, rather than following on from last tick. */
  readonly resynced: boolean;
}

/** Brings a view up to date with a change: its adds and removes, recorded in `held`. */
export type ApplyChange = (held: HeldView, update: ViewUpdate) => void;

/**
 * Which StateView each SDK client reads, and the sharing of them.
 *
 * Clients in step that are given the same listing held the same entities and hold the same again after
 * it: the first such client's view has the listing applied (in place, when every client on it made the
 * same move; otherwise a copy of it, see `fork`), and the others move onto that view. A client that is
 * not in step (its own drops, a resync, still joining) gets a view of its own. A view is changed in place
 * only while every client on it is being updated: a client left out (dropped, waiting to reconnect) keeps
 * what it holds.
 */
export class StateViewSharing {
  /** Each session's view. */
  private readonly holders = new Map<string, HeldView>();
  /** This tick's views by the listing applied to them. */
  private byListing = new Map<ViewChange, HeldView>();
  private pending: ViewUpdate[] = [];
  private batching = false;
  private readonly spare: StateView[] = [];

  constructor(
    private readonly applyChange: ApplyChange,
    /** Any entity of the replicated state: a new view binds to the state through it (see `bound`). */
    private readonly anyEntity: () => EntityState | undefined,
    /** False: every client has a view of its own (the reference the shared views are checked against). */
    private readonly share = true,
  ) {}

  /** A new tick: views changed from now on follow this tick's listings. */
  startTick(): void {
    this.byListing = new Map();
  }

  opened(client: Client): void {
    const holder = new HeldView(new StateView());
    holder.users = 1;
    this.holders.set(client.sessionId, holder);
    client.view = holder.view;
  }

  closed(client: Client): void {
    const holder = this.holders.get(client.sessionId);
    this.holders.delete(client.sessionId);
    // A replaced client may be sent one more patch before it is gone: as a client without a view.
    client.view = undefined;
    if (holder && --holder.users === 0) this.release(holder);
  }

  /** The views changed by `run`'s updates are changed together, once it is done (see `flush`). */
  batch(run: () => void): void {
    this.batching = true;
    try {
      run();
    } finally {
      this.batching = false;
      this.flush();
    }
  }

  update(update: ViewUpdate): void {
    this.pending.push(update);
    if (!this.batching) this.flush();
  }

  private flush(): void {
    const updates = this.pending;
    this.pending = [];
    const byHolder = new Map<HeldView, ViewUpdate[]>();
    for (const update of updates) {
      const holder = this.holders.get(update.client.sessionId);
      if (!holder) continue;
      const list = byHolder.get(holder);
      if (list) list.push(update);
      else byHolder.set(holder, [update]);
    }
    const left: HeldView[] = [];
    for (const [holder, list] of byHolder) {
      const kept = this.keptListing(holder, list);
      // Copies are made from what the view holds before its own listing is applied.
      for (const update of list) {
        if (update.change !== kept || !this.shareable(update, holder)) this.moveOff(holder, update, left);
      }
      if (kept) this.applyInPlace(holder, list.find((update) => update.change === kept)!);
    }
    for (const holder of left) if (holder.users === 0) this.release(holder);
  }

  /**
   * The listing the view itself is brought up to date with, when every client on it is being updated:
   * the one most of its clients in step share, unless another view has it already.
   */
  private keptListing(holder: HeldView, list: readonly ViewUpdate[]): ViewChange | undefined {
    if (list.length !== holder.users) return undefined;
    const counts = new Map<ViewChange, number>();
    let kept: ViewChange | undefined;
    for (const update of list) {
      if (!this.shareable(update, holder) || this.byListing.has(update.change)) continue;
      const count = (counts.get(update.change) ?? 0) + 1;
      counts.set(update.change, count);
      if (!kept || count > counts.get(kept)!) kept = update.change;
    }
    return kept;
  }

  /** The client leaves `holder`: for the view that has its listing, a copy, or its own. */
  private moveOff(holder: HeldView, update: ViewUpdate, left: HeldView[]): void {
    const shared = this.shareable(update, holder);
    const target = shared ? this.byListing.get(update.change) : undefined;
    if (target) {
      this.switchTo(update.client, holder, target, left);
    } else if (holder.users === 1) {
      this.applyInPlace(holder, update);
    } else {
      const copy = this.fork(holder);
      this.switchTo(update.client, holder, copy, left);
      this.applyInPlace(copy, update);
    }
  }

  private applyInPlace(holder: HeldView, update: ViewUpdate): void {
    if (holder.listedAs && this.byListing.get(holder.listedAs) === holder)
      this.byListing.delete(holder.listedAs);
    holder.listedAs = undefined;
    this.applyChange(holder, update);
    if (this.shareable(update, holder, true)) {
      holder.listedAs = update.change;
      this.byListing.set(update.change, holder);
    }
  }

  /**
   * Whether the client's view may be shared: it is in step, joined (Colyseus sends patches to joined
   * clients only), and holds nothing it was not sent yet (`applied`: but for what was just applied).
   */
  private shareable(update: ViewUpdate, holder: HeldView, applied = false): boolean {
    return (
      this.share &&
      update.inStep &&
      !update.resynced &&
      update.client.state === ClientState.JOINED &&
      (applied || holder.view.changes.size === 0)
    );
  }

  private switchTo(client: Client, from: HeldView, to: HeldView, left: HeldView[]): void {
    from.users--;
    if (from.users === 0) left.push(from);
    to.users++;
    this.holders.set(client.sessionId, to);
    client.view = to.view;
  }

  /** A view that holds what `holder` holds, with nothing to send for it: its clients have it already. */
  private fork(holder: HeldView): HeldView {
    const copy = new HeldView(this.spare.pop() ?? this.bound(new StateView()));
    for (const [id, entity] of holder.held) {
      const tree = entity[$changes];
      if (tree) copy.view.markVisible(tree);
      copy.held.set(id, entity);
    }
    return copy;
  }

  /**
   * A StateView binds to the state (takes its id and makes the state's root and map visible) at its first
   * add. A copy binds through any entity, forgets what that add queued to send, and hides the entity again.
   */
  private bound(view: StateView): StateView {
    const entity = this.anyEntity();
    if (!entity) return view;
    view.add(entity);
    view.changes.clear();
    const tree = entity[$changes];
    if (tree) view.unmarkVisible(tree);
    return view;
  }

  /** Nobody reads the view any more: what it made visible is hidden, and it is kept for a copy. */
  private release(holder: HeldView): void {
    if (holder.listedAs && this.byListing.get(holder.listedAs) === holder)
      this.byListing.delete(holder.listedAs);
    if (this.spare.length >= SPARE_VIEWS) {
      holder.view.dispose();
      return;
    }
    for (const entity of holder.held.values()) {
      const tree = entity[$changes];
      if (tree) holder.view.unmarkVisible(tree);
    }
    holder.held.clear();
    holder.view.changes.clear();
    this.spare.push(holder.view);
  }
}
