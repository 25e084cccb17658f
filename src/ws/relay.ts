import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { CloseCode } from "@colyseus/core";
import { type RawData, WebSocket, type WebSocketServer } from "ws";
import { CLOSE_SLOW_READER } from "../net/slow-reader.js";
import { CLOSE_UNAVAILABLE } from "../protocol/close-codes.js";
import { closeWithError } from "./join-failures.js";
import { HopHold, hopHandedBack, type RelayedHop } from "./relayed-hops.js";

const UPSTREAM_HANDSHAKE_TIMEOUT_MS = 5000;

/** The /ws channel of the process that holds the world, and the upgrade headers to send it. */
export interface RelayTarget {
  url: string;
  headers: Record<string, string>;
}

export interface RelayOptions {
  /** Output a client may leave unread before it is disconnected as a slow reader. */
  maxBufferedBytes: number;
  /** How often the world's process is pinged; one that missed the previous ping is cut (see keepAlive). */
  pingMs: number;
  /** The accepted client socket, before any frame passes. */
  onOpen(client: WebSocket): void;
  /** The upstream connection could not be opened for a reason other than a refusal. */
  onUnreachable(socket: Duplex, error: Error): void;
  /** The world granted the client a hop, which this process carries out (see CLOSE_HOP_HERE). */
  onHop(client: WebSocket, hop: RelayedHop): void;
  /** At most this many of the client's frames are held during a hop (what the flood limit lets through). */
  holdLimit: number;
}

/**
 * Relays a /ws connection that reached a process the world does not run on (scaled out, behind a load
 * balancer) to the /ws channel of the one it runs on. That connection opens first, so its refusal (an
 * HTTP status and body) answers the client's upgrade as it is; then the upgrade is accepted and each
 * side's frames go to the other unchanged, and so does a close.
 */
export function relay(
  wss: WebSocketServer,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: RelayTarget,
  options: RelayOptions,
): void {
  // A world process that stalls accepts the TCP connection and answers nothing: the client gets 503.
  const upstream = new WebSocket(target.url, {
    headers: target.headers,
    handshakeTimeout: UPSTREAM_HANDSHAKE_TIMEOUT_MS,
  });
  let client: WebSocket | undefined;
  const early: { data: RawData; isBinary: boolean }[] = [];
  const toClient = (data: RawData, isBinary: boolean) => {
    if (!client) {
      early.push({ data, isBinary });
      return;
    }
    passOn(client, data, isBinary, options.maxBufferedBytes);
  };

  // The client's upgrade gets one answer: the relayed connection, a refusal from there, or unreachable.
  let answered = false;
  onRefusal(
    upstream,
    () => (answered = true),
    (response, body) => {
      if (!socket.writable) return;
      const retryAfter = response.headers["retry-after"];
      socket.write(
        `HTTP/1.1 ${response.statusCode} ${response.statusMessage}\r\n` +
          `Content-Type: ${response.headers["content-type"] ?? "application/json"}\r\n` +
          `Content-Length: ${body.length}\r\n${retryAfter ? `Retry-After: ${retryAfter}\r\n` : ""}` +
          "Connection: close\r\n\r\n",
      );
      socket.end(body);
    },
  );
  upstream.on("error", (error) => {
    if (answered) return;
    answered = true;
    if (socket.writable) options.onUnreachable(socket, error);
  });
  const hops = new HopHold(options.holdLimit, (frame) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(frame.data, { binary: frame.isBinary });
  });
  upstream.on("message", (data: RawData, isBinary: boolean) => {
    hops.down(data, isBinary);
    toClient(data, isBinary);
  });
  upstream.once("open", () => {
    answered = true;
    if (!socket.writable) {
      upstream.close(GOING_AWAY);
      return;
    }
    keepAlive(upstream, options.pingMs);
    wss.handleUpgrade(request, socket, head, (accepted) => {
      client = accepted;
      options.onOpen(accepted);
      for (const frame of early.splice(0)) toClient(frame.data, frame.isBinary);
      const onClientMessage = (data: RawData, isBinary: boolean) => hops.up({ data, isBinary });
      const onClientClose = (code: number, reason: Buffer) => upstream.close(sendable(code), reason);
      accepted.on("message", onClientMessage);
      accepted.on("close", onClientClose);
      closeWithUpstream(upstream, accepted, hops, { onClientMessage, onClientClose }, options.onHop);
    });
  });
}

/** A frame as `ws` hands it over. */
export interface Frame {
  data: RawData;
  isBinary: boolean;
}

/**
 * Relays a /ws connection already open here (a player who hopped to a world on another process) to that
 * world's process: `waiting` frames first, then each side's frames go to the other, and so does a close.
 * A refusal there (an HTTP status and body) reaches the client as an `error` frame, then a close.
 */
export function relayOpen(
  client: WebSocket,
  target: RelayTarget,
  waiting: Frame[],
  options: Pick<RelayOptions, "maxBufferedBytes" | "pingMs" | "onHop" | "holdLimit"> & {
    onUnreachable(error: Error): void;
  },
): void {
  const upstream = new WebSocket(target.url, {
    headers: target.headers,
    handshakeTimeout: UPSTREAM_HANDSHAKE_TIMEOUT_MS,
  });
  const early: Frame[] = [...waiting];
  let answered = false;
  const fail = (code: string, message: string, closeCode: number) =>
    closeWithError(client, code, message, closeCode);
  const hops = new HopHold(options.holdLimit, (frame) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(frame.data, { binary: frame.isBinary });
  });
  // Once open, what the client sends goes through the hop hold: a hop handed back closes the upstream
  // while the client may still be sending, and those frames are the next world's.
  const onClientMessage = (data: RawData, isBinary: boolean) => {
    if (upstream.readyState === WebSocket.CONNECTING) early.push({ data, isBinary });
    else hops.up({ data, isBinary });
  };
  const onClientClose = (code: number, reason: Buffer) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.close(sendable(code), reason);
    else upstream.terminate();
  };
  client.on("message", onClientMessage);
  client.on("close", onClientClose);
  onRefusal(
    upstream,
    () => (answered = true),
    (response, body) => {
      let error = {
        code: "join_failed",
        message: `the world refused the connection (${response.statusCode})`,
      };
      try {
        error = (JSON.parse(body.toString()) as { error: typeof error }).error ?? error;
      } catch {}
      fail(error.code, error.message, response.statusCode === 503 ? CLOSE_UNAVAILABLE : CloseCode.WITH_ERROR);
    },
  );
  upstream.on("error", (error) => {
    if (answered) return;
    answered = true;
    options.onUnreachable(error);
    fail("unavailable", "the world's server process cannot be reached; retry later", CLOSE_UNAVAILABLE);
  });
  upstream.on("message", (data: RawData, isBinary: boolean) => {
    hops.down(data, isBinary);
    passOn(client, data, isBinary, options.maxBufferedBytes);
  });
  upstream.once("open", () => {
    answered = true;
    if (client.readyState !== WebSocket.OPEN) {
      upstream.close(GOING_AWAY);
      return;
    }
    for (const frame of early.splice(0)) hops.up(frame);
    keepAlive(upstream, options.pingMs);
    closeWithUpstream(upstream, client, hops, { onClientMessage, onClientClose }, options.onHop);
  });
}

/**
 * Hands a refusal of the upstream upgrade (an HTTP status instead of the switch) to `refused` with its
 * whole body; `started` is told at once, so that an error while the body comes is not taken as another answer.
 */
function onRefusal(
  upstream: WebSocket,
  started: () => void,
  refused: (response: IncomingMessage, body: Buffer) => void,
): void {
  upstream.once("unexpected-response", (upstreamRequest, response) => {
    started();
    const chunks: Buffer[] = [];
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.on("end", () => {
      upstreamRequest.destroy();
      refused(response, Buffer.concat(chunks));
    });
  });
}

/**
 * Cuts the connection to a world's process that stopped answering (stopped, paused, a dead network):
 * its client is then closed as after the process's death and reconnects, where the world may run again
 * elsewhere. This process answers the client's own pings, so nothing else would let it go.
 */
function keepAlive(upstream: WebSocket, everyMs: number): void {
  let answered = true;
  upstream.on("pong", () => {
    answered = true;
  });
  const timer = setInterval(() => {
    if (!answered) {
      upstream.terminate();
      return;
    }
    answered = false;
    upstream.ping();
  }, everyMs);
  timer.unref();
  upstream.once("close", () => clearInterval(timer));
}

const GOING_AWAY = 1001;

/**
 * The client is closed as the world's process closed the upstream, unless that process handed a hop
 * back: the client's relay listeners then come off, and the hop is carried out here with what was held.
 */
function closeWithUpstream(
  upstream: WebSocket,
  client: WebSocket,
  hops: HopHold,
  listeners: {
    onClientMessage: (data: RawData, isBinary: boolean) => void;
    onClientClose: (code: number, reason: Buffer) => void;
  },
  onHop: RelayOptions["onHop"],
): void {
  upstream.on("close", (code, reason) => {
    const hop = hopHandedBack(code, reason);
    if (!hop) return client.close(sendable(code), reason);
    client.off("message", listeners.onClientMessage);
    client.off("close", listeners.onClientClose);
    onHop(client, { ...hop, held: hops.take() });
  });
}

/** Passes a world's frame on to the client, which is let go once it stops reading (a slow reader). */
function passOn(client: WebSocket, data: RawData, isBinary: boolean, maxBufferedBytes: number): void {
  if (client.readyState !== WebSocket.OPEN) return;
  if (client.bufferedAmount > maxBufferedBytes) {
    client.close(CLOSE_SLOW_READER, "slow reader");
    client.terminate();
    return;
  }
  client.send(data, { binary: isBinary });
}

/**
 * A close code as it may be sent on. "No status" and "abnormal closure" only describe what a side saw;
 * the other is told the peer went away, which the world takes as a drop (reconnectable), not a logout.
 */
function sendable(code: number): number {
  return code === 1005 || code === 1006 || code === 1015 ? GOING_AWAY : code;
}
