import type { RawData, WebSocket } from "ws";
import type { Frame } from "./relay.js";

/** A connection's frames held while nothing takes them yet (see holdFrames). */
export interface HeldFrames {
  /** Stops holding (the caller listens in the same step) and gives what was held. */
  release(): Frame[];
}

/**
 * Holds what a client sends while its connection waits for a world (its login, a hop): without a
 * listener `ws` would drop those frames unread. At most `limit` are held, what the flood limit would let
 * through; beyond, they are dropped. `held` are frames held already, carried on.
 */
export function holdFrames(ws: WebSocket, limit: number, held: Frame[] = []): HeldFrames {
  const frames = held.slice(0, limit);
  const hold = (data: RawData, isBinary: boolean) => {
    if (frames.length < limit) frames.push({ data, isBinary });
  };
  ws.on("message", hold);
  return {
    release: () => {
      ws.off("message", hold);
      return frames;
    },
  };
}
