// An SDK client's room message over the protocol's size is refused as a /ws frame is (`frame_too_large`,
// the connection kept), not cut by the transport. Colyseus hands a room the decoded message only, so the
// size is read off the frame as it arrives, before Colyseus's own listener dispatches it.
import type { EventEmitter } from "node:events";
import { type Client, Protocol } from "@colyseus/core";
import { admitMessage, type FloodGuard } from "../limits/flood-guard.js";
import { MAX_FRAME_BYTES, TOO_LARGE } from "../protocol/messages.js";

const PROTOCOL_CODE_MASK = 0x1f;
/** Clients whose message being dispatched now came in a frame over the size. */
const oversized = new WeakSet<Client>();

/** Watches the sizes of the client's room messages (see refusedForSize). */
export function watchMessageSizes(client: Client): void {
  const ws = client.ref as EventEmitter | undefined;
  ws?.prependListener("message", (data: unknown) => {
    if (!(data instanceof Uint8Array)) return;
    const code = (data[0] ?? 0) & PROTOCOL_CODE_MASK;
    // A message sent with `send` or with `sendBytes`: either is the client's room message.
    if (code !== Protocol.ROOM_DATA && code !== Protocol.ROOM_DATA_BYTES) return;
    if (data.byteLength > MAX_FRAME_BYTES) oversized.add(client);
    else oversized.delete(client);
  });
}

/**
 * Whether the message being dispatched (`event`) came over the size: it is then refused, counted with
 * the player's other messages, and goes no further.
 */
export function refusedForSize(client: Client, event: string, guard: FloodGuard): boolean {
  if (!oversized.delete(client)) return false;
  const refuse = (error: { code: string; message: string }) => client.send("error", { ...error, event });
  if (admitMessage(guard, client, refuse)) refuse({ code: "frame_too_large", message: TOO_LARGE });
  return true;
}
