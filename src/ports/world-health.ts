// How the world of this process fares with its database: the world reports it, /health reads it.

/** Whether the world's writes reach its database, as the world running in this process finds. */
export type WorldDatabaseState =
  | { state: "ok" }
  /** Its writes fail, or one has run for long: the world holds its players' actions meanwhile. */
  | { state: "waiting"; sinceMs: number };

/**
 * The world of this process, when one runs here: it tells /health how its writes fare. The world's writes
 * have connections of their own, so a ping that answers says nothing of them.
 */
export class LocalWorldHealth {
  private readonly sources = new Set<() => WorldDatabaseState>();

  /** A world opened here reports through `source` until it calls the returned function. */
  report(source: () => WorldDatabaseState): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** Undefined when no world runs here; otherwise the longest wait of the worlds here, or ok. */
  read(): WorldDatabaseState | undefined {
    let worst: WorldDatabaseState | undefined;
    for (const source of this.sources) {
      const state = source();
      if (!worst || (state.state === "waiting" && (worst.state === "ok" || state.sinceMs > worst.sinceMs)))
        worst = state;
    }
    return worst;
  }
}

/**
 * GET /health: public; 503 "degraded" when the database does not answer in time, or when the world
 * running in this process waits for its database (its writes fail or hang). The body says which:
 * `database` ("ok" or "unavailable") and, where the world runs, `world` ({"database": "ok" | "waiting",
 * "waitingMs"?}). The 503 carries the health fields and the protocol's error body side by side, so both
 * readers find what they look for.
 */
