// The services one server process holds, opened once at start-up (src/server/runtime.ts) and closed
// once at shutdown; each consumer takes the part it uses.
import type http from "node:http";
import type { AgentManager } from "../agents/manager.js";
import type { Sightings } from "../auth/sightings.js";
import type { TokenVerifier } from "../auth/tokens.js";
import type { Config } from "../config/config.js";
import type { AccountRepository } from "../db/accounts.js";
import type { CharacterRepository } from "../db/characters.js";
import type { DatabaseHandle } from "../db/database.js";
import type { TradeRepository } from "../db/trades.js";
import type { WorldLeases } from "../db/world-lease.js";
import type { WorldStore } from "../db/world-store.js";
import type { GameData } from "../game/types.js";
import type { FloodGuards } from "../limits/flood-guard.js";
import type { RateLimits } from "../limits/rate-limits.js";
import type { Outbox } from "../net/outbox.js";
import type { Logger } from "../telemetry/logger.js";
import type { TickPace } from "./tick-pace.js";
import type { LocalWorldHealth } from "./world-health.js";
import type { WorldSeats } from "./world-seats.js";

/** Everything a server instance holds: opened once at start-up, closed once at shutdown. */
export interface Runtime {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  accounts: AccountRepository;
  /** When accounts were last seen (see Sightings). */
  sightings: Sightings;
  characters: CharacterRepository;
  /** The world room's writes: characters and ground items a tick at a time. */
  worldStore: WorldStore;
  /** The world's trade swaps, on the world's own connections. */
  worldTrades: TradeRepository;
  /** Trades as any process reads them (a trade settled after its world's process died). */
  trades: TradeRepository;
  /** The world's right to write: claimed by the world that opens here, revoked for one that died. */
  worldLeases: WorldLeases;
  /** The server's autonomous agents (started once the server listens). */
  agents: AgentManager;
  gameData: GameData;
  /** The folder GET /manifests/ serves: the repository's manifests, or production's fetched copy. */
  manifestDir: string;
  /** Key of the server's own HS256 tokens (anonymous mode). */
  jwtSecret: Uint8Array;
  /** Verifies bearer tokens (the provider's, or the anonymous ones); its key-set cache is shared by all callers. */
  tokens: TokenVerifier;
  /** REST and authentication-attempt counters (in Redis when REDIS_URL is set). */
  rateLimits: RateLimits;
  /** Each player's WebSocket message count, across its connections to this process. */
  floodGuards: FloodGuards;
  /** How the writes of the world running in this process fare (for /health). */
  worldHealth: LocalWorldHealth;
  /** The seats of the world running in this process, for logins the database cannot answer. */
  worldSeats: WorldSeats;
  /** The one HTTP server: Express, the Colyseus transport and /ws share it. */
  httpServer: http.Server;
  /** Where the world's publishes go out (WRITE_PATH): its writer thread and slab are closed with the rest. */
  outbox: Outbox;
  /** Paces the world's ticks besides its clock (see TickPace); unset but in the agents' exam. */
  tickPace?: TickPace;
  close(): Promise<void>;
}
