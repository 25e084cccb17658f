// A /ws frame's envelope, `{event, data, id?}`, read from what the socket delivered.
import type { RawData } from "ws";
import type { Refusal } from "../protocol/messages.js";

/** Largest accepted frame; larger ones are answered with `error` and dropped. */
export const MAX_FRAME_BYTES = 4096;

export interface Envelope {
  event: string;
  data: unknown;
  id?: string;
}

const FRAME_SHAPE = 'A frame is an object {"event": string, "data": object, "id"?: string}.';

/** The envelope of a frame, or the error that answers it (with the frame's `id` when it has a readable one). */
export function readEnvelope(
  data: RawData,
  isBinary: boolean,
): Envelope | (Refusal & { event?: string; id?: string }) {
  if (isBinary)
    return { code: "bad_frame", message: "Frames are JSON text; binary frames are not accepted." };
  const size = Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
  if (size > MAX_FRAME_BYTES)
    return { code: "frame_too_large", message: `Frames are at most ${MAX_FRAME_BYTES} bytes.` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString());
  } catch {
    return { code: "bad_frame", message: "The frame is not valid JSON." };
  }
  if (typeof parsed !== "object" || parsed === null) return { code: "bad_frame", message: FRAME_SHAPE };
  const { event, data: payload, id } = parsed as Record<string, unknown>;
  const echoedId = typeof id === "string" ? id : undefined;
  if (typeof event !== "string") return { code: "bad_frame", message: FRAME_SHAPE, id: echoedId };
  if (id !== undefined && echoedId === undefined)
    return { code: "bad_frame", message: '"id" must be a string.', event };
  return { event, data: payload ?? {}, id: echoedId };
}
