import type { EventEmitter } from "node:events";
import { type Client, Protocol } from "@colyseus/core";
import { admitMessage, type FloodGuard } from "../limits/flood-guard.js";

/**
 * Protocol codes of the frames that are counted elsewhere: room messages, which reach the room's
 * handler (and its count), and the join handshake's acknowledgement and leave.
 */
const COUNTED_ELSEWHERE = new Set<number>([
  Protocol.ROOM_DATA,
  Protocol.ROOM_DATA_BYTES,
  Protocol.JOIN_ROOM,
  Protocol.LEAVE_ROOM,
]);
const PROTOCOL_CODE_MASK = 0x1f;

/**
 * Counts against the player's message limit the frames of an SDK connection that Colyseus answers
 * itself, without any handler of the room seeing them: requests (`room.request`, answered "no handler"
 * here), latency pings and anything else. Uncounted, a client could have the thread that runs the tick
 * answer tens of thousands of them a second. Colyseus has already handled such a frame when it is
 * counted, so a blocked client's frames are still answered; one that keeps on through the block is
 * closed (4429), as for room messages.
 */
export function countSelfAnsweredFrames(client: Client, guard: () => FloodGuard): void {
  const ws = client.ref as EventEmitter | undefined;
  ws?.on("message", (data: unknown) => {
    if (!(data instanceof Uint8Array) || COUNTED_ELSEWHERE.has((data[0] ?? 0) & PROTOCOL_CODE_MASK)) return;
    admitMessage(guard(), client, (error) => client.send("error", error));
  });
}
