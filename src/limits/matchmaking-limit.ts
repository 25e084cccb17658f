import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { matchMaker } from "@colyseus/core";
import getRawBody from "raw-body";
import type { Logger } from "../telemetry/logger.js";
import { BODY_LIMIT_BYTES } from "./body-size.js";
import { pinClientAddress } from "./client-address.js";
import { type AttemptCounter, clientKey } from "./rate-limits.js";

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

export interface MatchmakingLimitOptions {
  /** The REST limit's counters: a seat request counts as one REST request of its client. */
  requests: AttemptCounter;
  /** TRUST_PROXY (see clientAddress). */
  trustProxy: number;
  /** Requests that are not counted: the server's own agents'. */
  exempt(request: IncomingMessage): boolean;
  /** Sets the headers every answer of the server carries (its hardening headers), then calls `next`. */
  harden(request: IncomingMessage, response: ServerResponse, next: () => void): void;
  logger: Logger;
}

/**
 * Puts the REST limits in front of Colyseus's matchmaking routes (`/matchmake/...`): the request count
 * and the body size. Each seat request verifies a token and reads the database on the thread that runs
 * the world's tick, so a client asking for seats without pause would slow the world for everyone; and
 * Colyseus reads a body whole, however large, before it looks at it (a chunked one has no length for it
 * to hold it to). Colyseus answers these routes from its own request listeners, outside Express and its
 * /api limiter and its headers: they are wrapped here, as Colyseus wraps them itself to pre-read bodies, and
 * their answers, the refusals here too, get the server's hardening headers. Call once they
 * are in place (just after the server starts listening).
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
    options.harden(request, response, () => limit(request, response));
  });

  function limit(request: IncomingMessage, response: ServerResponse) {
    // The matchmaker counts failed tokens under the client's address, which it reads from these headers.
    const address = pinClientAddress(request, options.trustProxy);
    if (request.method === "OPTIONS" || options.exempt(request)) return handle(request, response);
    options.requests.hit(clientKey(address)).then(
      ({ limited, retryAfterSeconds }) => {
        if (limited) {
          refuse(request, response, 429, "too many requests; retry later", {
            "retry-after": String(retryAfterSeconds),
          });
          return;
        }
        readBody(request, BODY_LIMIT_BYTES).then(
          (body) => {
            // Colyseus takes a body already read from here rather than from the request stream.
            if (body !== undefined) (request as IncomingMessage & { body?: string }).body = body;
            handle(request, response);
          },
          // What is left of the body is not read: the connection closes after the answer.
          () => refuse(request, response, 413, "the body is too large", { connection: "close" }),
        );
      },
      (error: unknown) => {
        options.logger.error({ err: error }, "counting a matchmaking request failed");
        refuse(request, response, 500, "internal error");
      },
    );
  }
}

/**
 * The request's body as text, once all of it has come; undefined when it has none. Rejects as soon as
 * more than `maxBytes` have come, without waiting for the rest (raw-body, which body-parser reads with).
 */
function readBody(request: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const hasBody =
    request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"]) > 0;
  if (!hasBody) return Promise.resolve(undefined);
  return getRawBody(request, { limit: maxBytes, encoding: "utf8" });
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
  // Whatever of the body is still unread is not wanted.
  request.resume();
}
