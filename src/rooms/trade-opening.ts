// How a world opens a trade's room, and how that room knows the world opened it (clients may ask the
// matchmaker to create rooms too): the world signs the trade, and the room checks the signature.
import { createHmac, timingSafeEqual } from "node:crypto";
import { matchMaker } from "@colyseus/core";
import type { Trade } from "../game/trade.js";
import type { TradeEndReason, TradePort } from "../ports/world-port.js";

/** The world that opened a trade: its room, its process, and the lease epoch it writes under (see WorldLease). */
export interface OpeningWorld {
  roomId: string;
  processId: string;
  epoch: number;
  /** The numbered world, whose lease `epoch` is of (1 when a trade opened before worlds were numbered). */
  world?: number;
}

export interface TradeRoomOptions {
  trade: Trade;
  world: OpeningWorld;
  /** Proves the world created this room: clients may ask the matchmaker to create rooms too. */
  signature: string;
}

/** The signature a world puts on the trades it opens. */
export function signTrade(secret: Uint8Array, trade: Trade, world: OpeningWorld): string {
  const [a, b] = trade.sides;
  return createHmac("sha256", secret)
    .update(
      `${trade.id}:${a.player.id}:${b.player.id}:${world.roomId}:${world.processId}:${world.epoch}` +
        (world.world === undefined ? "" : `:${world.world}`),
    )
    .digest("hex");
}

export function isSignedByWorld(secret: Uint8Array, options: Partial<TradeRoomOptions> | undefined): boolean {
  const { trade, world, signature } = options ?? {};
  if (!trade?.sides?.[0] || !trade.sides[1]) return false;
  if (typeof world?.roomId !== "string" || typeof world.processId !== "string") return false;
  if (!Number.isInteger(world.epoch)) return false;
  if (world.world !== undefined && !Number.isInteger(world.world)) return false;
  const expected = Buffer.from(signTrade(secret, trade, world));
  const given = Buffer.from(typeof signature === "string" ? signature : "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Creates the room of a trade the world started. A /ws client joins its trade from the world's process
 * (its connection is there, relayed or not), so such a trade runs there too; SDK clients may be sent to
 * any process.
 */
export async function openTradeRoom(
  secret: Uint8Array,
  trade: Trade,
  world: OpeningWorld,
  hasJsonClient: boolean,
): Promise<void> {
  const options: TradeRoomOptions = { trade, world, signature: signTrade(secret, trade, world) };
  if (hasJsonClient) await matchMaker.handleCreateRoom("trade", options);
  else await matchMaker.createRoom("trade", options);
}

/** Cancels a started trade through its room, wherever that runs. */
export function cancelStartedTrade(tradeId: string, playerId: string, reason: TradeEndReason): void {
  matchMaker.remoteRoomCall<TradePort>(tradeId, "cancelFor", [playerId, reason]).catch(() => {});
}
