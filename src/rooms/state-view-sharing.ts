// SDK clients that hold the same entities share one view: the room brings it up to date once, and its
// patch is encoded once for all of them (docs/architecture.md, "State patches").
import { type Client, ClientState } from "@colyseus/core";
import { WireView } from "../net/state-patches.js";
import type { ViewChange } from "./client-views.js";

/** A view of the state and the clients that read it: every client on it holds exactly what it holds. */
export class HeldView extends WireView {
  /** The sessions on it. */
  users = 0;
  /** The listing applied to it this tick, under which clients in step join it. */
  listedAs: ViewChange | undefined;
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
 * Which view each SDK client reads, and the sharing of them.
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

  constructor(
    private readonly applyChange: ApplyChange,
    /** False: every client has a view of its own (the reference the shared views are checked against). */
    private readonly share = true,
  ) {}

  /** The view the client reads. */
  viewOf(client: Client): HeldView | undefined {
    return this.holders.get(client.sessionId);
  }

  /** A new tick: views changed from now on follow this tick's listings. */
  startTick(): void {
    this.byListing = new Map();
  }

  opened(client: Client): void {
    const holder = new HeldView();
    holder.users = 1;
    this.holders.set(client.sessionId, holder);
  }

  /**
   * A reconnected client is sent the state whole from its view, which then counts as sent: it takes a
   * view of its own, so that the clients it shared one with are still sent what they wait for.
   */
  reattached(client: Client): void {
    const holder = this.holders.get(client.sessionId);
    if (!holder || holder.users === 1) return;
    this.switchTo(client, holder, this.fork(holder), []);
  }

  closed(client: Client): void {
    const holder = this.holders.get(client.sessionId);
    // A replaced client may be sent one more patch before it is gone: as a client without a view.
    this.holders.delete(client.sessionId);
    if (holder && --holder.users === 0) this.release(holder);
  }

  /**
   * From here until `endBatch`, the views updated are changed together, once it ends (see `flush`). A
   * pair of calls rather than a callback: the views' loop between them is a method of its caller, whose
   * optimized code outlives the room's full collections, where a callback made anew at each call loses it.
   */
  startBatch(): void {
    this.batching = true;
  }

  endBatch(): void {
    this.batching = false;
    this.flush();
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
      (applied || holder.sentAll)
    );
  }

  private switchTo(client: Client, from: HeldView, to: HeldView, left: HeldView[]): void {
    from.users--;
    if (from.users === 0) left.push(from);
    to.users++;
    this.holders.set(client.sessionId, to);
  }

  /** A view that holds what `holder` holds, with nothing to send for it: its clients have it already. */
  private fork(holder: HeldView): HeldView {
    return new HeldView(holder);
  }

  /** Nobody reads the view any more. */
  private release(holder: HeldView): void {
    if (holder.listedAs && this.byListing.get(holder.listedAs) === holder)
      this.byListing.delete(holder.listedAs);
  }
}
