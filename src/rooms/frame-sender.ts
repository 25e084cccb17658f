import type { EventEmitter } from "node:events";
import type { Client } from "@colyseus/core";

/** Who sent the frame Colyseus is reading now: one such object per SDK connection. */
export interface FrameSender {
  sessionId: string;
  characterId: string;
}

let reading: FrameSender | undefined;

/**
 * Marks each frame of `client`'s connection as the one being read, just before Colyseus reads it: the
 * listener goes first, and Colyseus reads a frame (and logs a frame it cannot decode) synchronously in
 * its own listener of the same event. So a log line of Colyseus's about a frame it could not read can be
 * told as this connection's (see colyseusLogger).
 */
export function markFramesOf(client: Client, sender: FrameSender): void {
  (client.ref as EventEmitter | undefined)?.prependListener("message", () => {
    reading = sender;
  });
}

/** The sender of the frame Colyseus read last, if any. */
export function frameBeingRead(): FrameSender | undefined {
  return reading;
}
