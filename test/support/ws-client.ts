import { WebSocket } from "ws";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import type { TestServer } from "./server.js";

/** One frame of the /ws channel, as the server sent it. */
export interface Frame {
  event: string;
  data: any;
  id?: string;
}

/** How a client presents its token on the upgrade. */
export type TokenPlacement = { header: string } | { query: string } | "none";

interface Waiter {
  matches: (frame: Frame) => boolean;
  resolve: (frame: Frame) => void;
}

/** A plain `ws` client of the /ws JSON channel (no Colyseus SDK) that records every frame it receives. */
export class WsClient {
  readonly frames: Frame[] = [];
  /** Resolves with the close code and reason once the server (or the client) closes the socket. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Waiter[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (raw) => this.receive(JSON.parse(raw.toString()) as Frame));
    this.closed = new Promise((resolve) => {
      socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
    });
  }

  /** Opens a connection; rejects when the upgrade is refused. */
  static async connect(
    url: string,
    token: TokenPlacement = "none",
    headers: Record<string, string> = {},
  ): Promise<WsClient> {
    const client = new WsClient(
      new WebSocket(withToken(url, token), { headers: { ...headersFor(token), ...headers } }),
    );
    await new Promise<void>((resolve, reject) => {
      client.socket.once("open", resolve);
      client.socket.once("error", reject);
    });
    return client;
  }

  /** The next frame (counting from now) of `event` whose data passes `test`. */
  next(
    event: string,
    test: (data: any, frame: Frame) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<Frame> {
    return this.wait((frame) => frame.event === event && test(frame.data, frame), event, timeoutMs);
  }

  /** The first frame received, or the next one when none has arrived yet. */
  first(): Promise<Frame> {
    return this.received(() => true);
  }

  /** The earliest frame, already received or yet to come, that passes `test`. */
  received(test: (frame: Frame) => boolean, timeoutMs = 5000): Promise<Frame> {
    const found = this.frames.find(test);
    return found ? Promise.resolve(found) : this.wait(test, `a matching frame`, timeoutMs);
  }

  send(event: string, data: unknown, id?: string): void {
    this.socket.send(JSON.stringify(id === undefined ? { event, data } : { event, data, id }));
  }

  sendRaw(payload: string | Buffer, binary = false): void {
    this.socket.send(payload, { binary });
  }

  /** Frames received from index `from` on (take `frames.length` as a mark first). */
  since(from: number): Frame[] {
    return this.frames.slice(from);
  }

  close(): Promise<{ code: number; reason: string }> {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(1000);
    return this.closed;
  }

  private wait(matches: (frame: Frame) => boolean, what: string, timeoutMs: number): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { matches, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        if (!this.waiters.includes(waiter)) return;
        this.waiters = this.waiters.filter((other) => other !== waiter);
        const seen = this.frames.map((frame) => frame.event).join(", ");
        reject(new Error(`no ${what} within ${timeoutMs} ms; received: ${seen}`));
      }, timeoutMs);
    });
  }

  private receive(frame: Frame): void {
    this.frames.push(frame);
    for (const waiter of [...this.waiters]) {
      if (!waiter.matches(frame)) continue;
      this.waiters = this.waiters.filter((other) => other !== waiter);
      waiter.resolve(frame);
    }
  }
}

/** A /ws client of a fresh anonymous identity, with the player:sync it was greeted with. */
export interface WsPlayer {
  client: WsClient;
  sync: PlayerSync;
  id: string;
  token: string;
}

/** Connects a new anonymous player with a bearer header and waits for its first player:sync. */
export function connectNewPlayer(server: TestServer): Promise<WsPlayer> {
  return connectPlayer(server);
}

/**
 * Connects a player of a fresh anonymous identity (or `token`'s), in `world` when given, with a bearer
 * header, and waits for its first player:sync.
 */
export async function connectPlayer(server: TestServer, world?: number, token?: string): Promise<WsPlayer> {
  const bearer = token ?? (await issueAnonymousToken(server.runtime.jwtSecret)).token;
  const url = world === undefined ? server.wsUrl : `${server.wsUrl}?world=${world}`;
  const client = await WsClient.connect(url, { header: bearer });
  const first = await client.first();
  if (first.event !== "player:sync")
    throw new Error(`the first frame was ${first.event}, not player:sync: ${JSON.stringify(first.data)}`);
  const sync = first.data as PlayerSync;
  return { client, sync, id: sync.id, token: bearer };
}

/** The HTTP status and body with which an upgrade was refused. */
export function refusedUpgrade(
  url: string,
  token: TokenPlacement = "none",
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; retryAfter?: string; challenge?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(withToken(url, token), { headers: { ...headersFor(token), ...headers } });
    socket.once("open", () => {
      socket.close();
      reject(new Error("the upgrade was accepted"));
    });
    socket.once("unexpected-response", (request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on("end", () => {
        request.destroy();
        const retryAfter = response.headers["retry-after"];
        const challenge = response.headers["www-authenticate"];
        resolve({ status: response.statusCode ?? 0, body, retryAfter, challenge });
      });
    });
    socket.once("error", () => {});
  });
}

function withToken(url: string, token: TokenPlacement): string {
  if (typeof token !== "object" || !("query" in token)) return url;
  return `${url}?token=${encodeURIComponent(token.query)}`;
}

function headersFor(token: TokenPlacement): Record<string, string> {
  return typeof token === "object" && "header" in token ? { Authorization: `Bearer ${token.header}` } : {};
}
