// An agent's seat in the world: it joins as an ordinary Colyseus SDK client (through its own server, see
// own-server.ts; from the agent process, wherever matchmaking sends it) and, out of the world without
// being stopped, joins again after a growing delay.
import { Client, type Room } from "@colyseus/sdk";
import { CLOSE_REPLACED } from "../protocol/close-codes.js";
import type { WorldJoinOptions } from "../protocol/messages.js";
import type { Logger } from "../telemetry/logger.js";
import { throughOwnServer } from "./own-server.js";

/**
 * The numbered world an agent plays in unless it is made for another: the configured agents' (see
 * AgentManager) and a new agent's when its request names none.
 */
export const AGENTS_WORLD = 1;

/** An agent out of the world tries to join again after this long, twice as long after each failure. */
const REJOIN_FIRST_DELAY_MS = 1000;
const REJOIN_MAX_DELAY_MS = 60_000;

export interface ConnectionDeps {
  agentId: string;
  characterId: string;
  /** Its world: run by the process the agent runs in (see AgentManager.host). */
  world: number;
  token(): Promise<string>;
  /** Headers of its matchmaking requests (see OwnAgentPass). */
  headers: Record<string, string>;
  /**
   * It connects to the room at the address matchmaking names, as any client does (from the agent
   * process, outside the game servers), rather than through the server it runs in.
   */
  followsPublicAddress: boolean;
  logger: Logger;
  /** A session began: listen to its messages (before any can arrive). */
  joined(room: Room): void;
  /** The session ended (the agent joins again unless stopped or replaced). */
  left(): void;
}

export class AgentConnection {
  private current: Room | undefined;
  private baseUrl: string | undefined;
  private stopped = false;
  private rejoinTimer: NodeJS.Timeout | undefined;
  private rejoinDelayMs = REJOIN_FIRST_DELAY_MS;

  constructor(private readonly deps: ConnectionDeps) {}

  /** The session in the world, if any. */
  get room(): Room | undefined {
    return this.current;
  }

  /** Whether start was called and stop was not: starting again, or after stopping, does nothing. */
  get startable(): boolean {
    return !this.baseUrl && !this.stopped;
  }

  get running(): boolean {
    return this.baseUrl !== undefined && !this.stopped;
  }

  async start(baseUrl: string): Promise<void> {
    this.baseUrl = baseUrl;
    await this.join();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.rejoinTimer);
    const room = this.current;
    this.current = undefined;
    if (room) await leaveForGood(room);
  }

  private async join(): Promise<void> {
    try {
      await this.connect(this.baseUrl!);
      this.rejoinDelayMs = REJOIN_FIRST_DELAY_MS;
    } catch (error) {
      this.rejoinLater();
      throw error;
    }
  }

  private rejoinLater(): void {
    if (this.stopped) return;
    const delay = this.rejoinDelayMs;
    this.rejoinDelayMs = Math.min(delay * 2, REJOIN_MAX_DELAY_MS);
    this.rejoinTimer = setTimeout(() => {
      this.join().catch((error: unknown) => {
        this.deps.logger.warn(
          { err: error, agentId: this.deps.agentId, retryInMs: this.rejoinDelayMs },
          "an agent could not join the world again",
        );
      });
    }, delay);
  }

  private async connect(baseUrl: string): Promise<void> {
    const internal = new URL(baseUrl);
    const sdk = new Client(baseUrl, {
      headers: this.deps.headers,
      urlBuilder: this.deps.followsPublicAddress ? undefined : (url) => throughOwnServer(url, internal),
    });
    sdk.auth.token = await this.deps.token();
    const options: WorldJoinOptions = {
      characterId: this.deps.characterId,
      updates: "messages",
      world: this.deps.world,
    };
    const room = await sdk.joinOrCreate("world", options);
    if (this.stopped) {
      await leaveForGood(room);
      return;
    }
    this.deps.joined(room);
    room.onLeave((code: number) => {
      if (this.current !== room) return;
      this.current = undefined;
      this.deps.left();
      // Replaced by another session of its character (a second copy of the agent, as while one world
      // replaces another): joining again would replace that one in turn, back and forth.
      if (code === CLOSE_REPLACED) {
        this.deps.logger.info({ agentId: this.deps.agentId }, "an agent was replaced by another session");
        return;
      }
      this.deps.logger.warn({ agentId: this.deps.agentId, code }, "an agent left the world: it joins again");
      this.rejoinLater();
    });
    this.current = room;
  }
}

/**
 * Leaves the world for good. A connection that dropped is brought back by the SDK on its own: a leave
 * sent meanwhile goes nowhere and would be waited on until the SDK gave up, while the reconnection put
 * the character back in the world with nobody playing it. So nothing reconnects from here on, a
 * reconnection already under way leaves once it is through, and only a leave that can be sent is
 * waited for (the world lets go of a dropped seat nobody takes back).
 */
async function leaveForGood(room: Room): Promise<void> {
  room.reconnection.enabled = false;
  room.onReconnect(() => {
    room.leave(true).catch(() => {});
  });
  if (room.connection.isOpen) await room.leave(true).catch(() => {});
}
