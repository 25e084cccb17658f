import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { matchMaker } from "@colyseus/core";
import { type AttemptCounter, clientKey } from "./api/rate-limits.js";
import { pinClientAddress } from "./client-address.js";
import type { Logger } from "./logger.js";

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

export interface MatchmakingLimitOptions {
  /** The REST limit's counters: a seat request counts as one REST request of its client. */
  requests: AttemptCounter;
  /** TRUST_PROXY (see clientAddress). */
  trustProxy: number;
  /** Requests that are not counted: the server's own agents'. */
  exempt(request: IncomingMessage): boolean;
  logger: Logger;
}

/**
 * Puts the REST limit in front of Colyseus's matchmaking routes (`/matchmake/...`). Each seat request
 * verifies a token and reads the database on the thread that runs the world's tick, so a client
 * asking for seats without pause would slow the world for everyone. Colyseus answers these routes
 * from its own request listeners, outside Express and its /api limiter: they are wrapped here, as
 * Colyseus wraps them itself to pre-read bodies. Call once they are in place (just after the server
 * starts listening).
 *
 * A refusal is in Colyseus's error shape, `{code, error}`, which its SDK reads into a `ServerError`.
 */
export function limitMatchmaking(server: Server, options: MatchmakingLimitOptions): void {
  const listeners = server.listeners("request") as RequestListener[];
  const handle: RequestListener = (request, response) => {
    for (const listener of listeners) listener.call(server, request, response);
  };
  server.removeAllListeners("request");
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (!request.url?.startsWith("/matchmake/")) return handle(request, response);
    // The matchmaker counts failed tokens under the client's address, which it reads from these headers.
    const address = pinClientAddress(request, options.trustProxy);
    if (request.method === "OPTIONS" || options.exempt(request)) return handle(request, response);
    options.requests.hit(clientKey(address)).then(
      ({ limited, retryAfterSeconds }) => {
        if (!limited) return handle(request, response);
        refuse(request, response, 429, "too many requests; retry later", {
          "retry-after": String(retryAfterSeconds),
        });
      },
      (error: unknown) => {
        options.logger.error({ err: error }, "counting a matchmaking request failed");
        refuse(request, response, 500, "internal error");
      },
    );
  });
}

function refuse(
  request: IncomingMessage,
  response: ServerResponse,
  code: number,
  error: string,
  headers: Record<string, string> = {},
): void {
  // The cross-origin headers Colyseus's own answers carry, so that a browser can read the refusal.
  const { controller } = matchMaker;
  const cors = {
    ...controller.DEFAULT_CORS_HEADERS,
    ...controller.getCorsHeaders(new Headers(request.headers as Record<string, string>)),
  };
  response.writeHead(code, { ...cors, ...headers, "content-type": "application/json" });
  response.end(JSON.stringify({ code, error }));
  // The body was never read: nothing more of it is wanted.
  request.resume();
}
