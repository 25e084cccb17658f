import pg from "pg";

/** A query the database did not answer in time: its connection was abandoned, the query may or may not have run. */
export class DatabaseTimeoutError extends Error {
  override name = "DatabaseTimeoutError";
}

/** The connections of one pool whose queries are under way: when each query started, and how to give up on it. */
export type BusyConnections = Map<pg.Client, { startedAt: number; abandon: () => void }>;

/**
 * A pg client whose queries are bounded on our side: one unanswered within `queryMs` closes its socket
 * (pg's own `query_timeout` rejects the query but leaves it on the connection, which the pool would hand
 * out again with the silent query still ahead of the next). A connection whose packets are dropped
 * (a failover, lost NAT or firewall state) would otherwise hold its query until the kernel gives up on
 * it, some 15 minutes. The pool drops an ended client when it is released.
 */
export function boundedClient(queryMs: number, busy: BusyConnections): typeof pg.Client {
  return class BoundedClient extends pg.Client {
    private abandoned = false;

    // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this passes them all on.
    override query(...args: any[]): any {
      const [first] = args;
      // A submittable (a cursor, a stream) paces itself: left as it is.
      if (first === undefined || typeof first.submit === "function") return super.query(...(args as [never]));
      // A query sent on a connection already given up on fails at once, with pg's own error.
      const sentToAbandoned = this.abandoned;
      const timer = setTimeout(() => this.abandon(), queryMs);
      busy.set(this, { startedAt: performance.now(), abandon: () => this.abandon() });
      const settled = (error: unknown) => {
        clearTimeout(timer);
        busy.delete(this);
        return this.abandoned && !sentToAbandoned && error
          ? new DatabaseTimeoutError(
              `the database did not answer within ${queryMs} ms (DATABASE_QUERY_TIMEOUT_MS): connection abandoned`,
              { cause: error },
            )
          : error;
      };
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        args[last] = (error: unknown, result: unknown) => callback(settled(error), result);
        return super.query(...(args as [never]));
      }
      return (super.query(...(args as [never])) as unknown as Promise<unknown>).then(
        (result) => {
          settled(undefined);
          return result;
        },
        (error: unknown) => {
          throw settled(error);
        },
      );
    }

    /** Gives up on the query under way: ending a client with a query under way destroys its socket. */
    abandon(): void {
      if (this.abandoned) return;
      this.abandoned = true;
      this.end().catch(() => {});
    }
  };
}

/** Abandons the queries of `busy` that have run longer than `olderThanMs` (see boundedClient). */
export function abandonQueries(busy: BusyConnections, olderThanMs: number): number {
  const now = performance.now();
  let abandoned = 0;
  for (const { startedAt, abandon } of busy.values()) {
    if (now - startedAt < olderThanMs) continue;
    abandon();
    abandoned++;
  }
  return abandoned;
}

type ConnectCallback = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/**
 * A pool that takes a client back once its connection ends, whoever holds it. Drizzle's transaction
 * sends BEGIN before its try block: a BEGIN that fails (its connection closed, or given up on above)
 * never releases its client, and the pool, counting it as held for good, would run out of connections.
 * A release after that (the holder's own) does nothing.
 */
export class ReleasingPool extends pg.Pool {
  // biome-ignore lint/suspicious/noExplicitAny: pg-pool's connect has a promise and a callback form.
  override connect(callback?: ConnectCallback): any {
    if (!callback) {
      return new Promise<pg.PoolClient>((resolve, reject) => {
        this.connect((error, client) => (error || !client ? reject(error) : resolve(client)));
      });
    }
    super.connect((error, client, done) => {
      if (error || !client) return callback(error, client, done);
      const original = client.release;
      let released = false;
      const onEnd = () => release(new Error("the connection ended while the client was held"));
      const release = (reason?: unknown) => {
        if (released) return;
        released = true;
        client.off("end", onEnd);
        original(reason as Error | boolean | undefined);
      };
      client.once("end", onEnd);
      client.release = release;
      callback(undefined, client, release);
    });
  }
}
