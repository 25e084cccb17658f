// A /ws frame's envelope, `{event, data, id?}`, read from what the socket delivered.
import type { RawData } from "ws";
import { MAX_FRAME_BYTES, type Refusal, TOO_LARGE } from "../protocol/messages.js";

export interface Envelope {
  event: string;
  data: unknown;
  id?: string;
}

/** A frame refused before it reaches the game: the error, naming the frame's event (null when unreadable). */
export interface RefusedFrame extends Refusal {
  event: string | null;
  id?: string;
}

const FRAME_SHAPE = 'A frame is an object {"event": string, "data": object, "id"?: string}.';

/** The envelope of a frame, or the error that answers it (with the frame's `id` when it has a readable one). */
export function readEnvelope(data: RawData, isBinary: boolean): Envelope | RefusedFrame {
  if (isBinary)
    return {
      code: "bad_frame",
      message: "Frames are JSON text; binary frames are not accepted.",
      event: null,
    };
  const size = Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString());
  } catch {
    return size > MAX_FRAME_BYTES
      ? { code: "frame_too_large", message: TOO_LARGE, event: null }
      : { code: "bad_frame", message: "The frame is not valid JSON.", event: null };
  }
  const {
    event,
    data: payload,
    id,
  } = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const named = typeof event === "string" ? event : null;
  const echoedId = typeof id === "string" ? id : undefined;
  // Read all the same (up to the socket's own limit), so that its refusal answers it.
  if (size > MAX_FRAME_BYTES)
    return { code: "frame_too_large", message: TOO_LARGE, event: named, id: echoedId };
  if (named === null) return { code: "bad_frame", message: FRAME_SHAPE, event: null, id: echoedId };
  if (id !== undefined && echoedId === undefined)
    return { code: "bad_frame", message: '"id" must be a string.', event: named };
  return { event: named, data: payload ?? {}, id: echoedId };
}
