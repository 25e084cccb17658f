import { Client, type Room } from "@colyseus/sdk";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import type { WorldJoinOptions } from "../../src/protocol/messages.js";
import { startTestServer, type TestServer } from "./server.js";

/** Every message a room sent, by event name, with a way to wait for the next matching one. */
export class Inbox {
  readonly received: { event: string; data: any }[] = [];
  private waiters: { event: string; test: (data: any) => boolean; resolve: (data: any) => void }[] = [];

  push(event: string, data: unknown): void {
    this.received.push({ event, data });
    for (const waiter of [...this.waiters]) {
      if (waiter.event === event && waiter.test(data)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(data);
      }
    }
  }

  all(event: string): any[] {
    return this.received.filter((message) => message.event === event).map((message) => message.data);
  }

  last(event: string): any {
    return this.all(event).at(-1);
  }

  /** The next `event` whose data passes `test` (one already received counts when `past` is true). */
  next<T = any>(
    event: string,
    test: (data: T) => boolean = () => true,
    timeoutMs = 5000,
    past = false,
  ): Promise<T> {
    if (past) {
      const found = this.all(event).find(test);
      if (found !== undefined) return Promise.resolve(found);
    }
    return new Promise<T>((resolve, reject) => {
      const waiter = { event, test, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index < 0) return;
        this.waiters.splice(index, 1);
        reject(
          new Error(
            `no ${event} within ${timeoutMs} ms; received: ${this.received.map((m) => m.event).join(", ")}; ` +
              `the last ${event}s: ${JSON.stringify(this.all(event).slice(-5))}`,
          ),
        );
      }, timeoutMs);
    });
  }
}

export interface SdkPlayer {
  room: Room;
  inbox: Inbox;
  token: string;
  id: string;
  sync: PlayerSync;
  sdk: Client;
}

/** A fresh anonymous player joined to the world through the Colyseus SDK (with the join's `options`). */
export async function joinAsNewPlayer(
  server: TestServer,
  token?: string,
  options?: WorldJoinOptions,
): Promise<SdkPlayer> {
  const bearer = token ?? (await issueAnonymousToken(server.runtime.jwtSecret)).token;
  const sdk = new Client(server.baseUrl);
  sdk.auth.token = bearer;
  const inbox = new Inbox();
  const room = await sdk.joinOrCreate("world", options);
  room.onMessage("*", (event, data) => inbox.push(String(event), data));
  const sync = await inbox.next<PlayerSync>("player:sync", () => true, 5000, true);
  return { room, inbox, token: bearer, id: sync.id, sync, sdk };
}

/** Polls `condition` every 100 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function waitForAsync(condition: () => Promise<unknown>, what: string, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether `promise` is still unsettled after `ms`: something that must wait has not gone ahead. */
export async function stillWaitingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  const settle = () => {
    settled = true;
  };
  promise.then(settle, settle);
  await sleep(ms);
  return !settled;
}

/** Leaves a room if it is still open; a room the server already closed resolves at once. */
export async function leave(room: Room | undefined): Promise<void> {
  if (!room?.connection.isOpen) return;
  await Promise.race([room.leave().catch(() => {}), sleep(1000)]);
}

/**
 * Mocha hooks for a suite of world tests: one server for the suite, fresh players joined through the
 * SDK by `join`, and every player leaving after each test.
 */
export function worldSuite(env: Record<string, string>): {
  server: () => TestServer;
  join: (token?: string, options?: WorldJoinOptions) => Promise<SdkPlayer>;
} {
  let server: TestServer | undefined;
  const players: SdkPlayer[] = [];
  before(async () => {
    server = await startTestServer(env);
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => leave(player.room)));
  });
  after(() => server?.stop());
  const running = () => {
    if (!server) throw new Error("the suite's server has not started");
    return server;
  };
  return {
    server: running,
    join: async (token, options) => {
      const player = await joinAsNewPlayer(running(), token, options);
      players.push(player);
      return player;
    },
  };
}
