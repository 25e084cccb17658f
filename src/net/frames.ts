// WebSocket framing by hand: unmasked final frames (RFC 6455 section 5.2), text for the /ws channel and
// binary for Colyseus's protocol. Neither negotiates compression, so a frame is a header and the payload
// as it is, and the frames of a tick can be laid out into one buffer and written at once.

import { keepShapeOf } from "../tuning/kept-shapes.js";

/** Bytes framed already: one or more whole frames, one after the other. */
export class FramedBytes {
  constructor(readonly bytes: Buffer) {
    keepShapeOf("frames", this);
  }
}

/** A message on its way out: its payload as UTF-8 pieces, or frames made earlier. */
export type OutgoingMessage = readonly Buffer[] | FramedBytes;

/** The most header bytes a frame can have. */
export const MAX_HEADER_BYTES = 10;

export function headerBytes(payloadLength: number): number {
  return payloadLength < 126 ? 2 : payloadLength < 65536 ? 4 : 10;
}

const TEXT = 0x1;
const BINARY = 0x2;
const FINAL = 0x80;

/** Writes the header of a final frame (text unless told) of `payloadLength` bytes at `offset`; returns the offset after it. */
export function writeHeader(out: Buffer, offset: number, payloadLength: number, opcode = TEXT): number {
  out[offset++] = FINAL | opcode;
  if (payloadLength < 126) {
    out[offset++] = payloadLength;
    return offset;
  }
  if (payloadLength < 65536) {
    out[offset++] = 126;
    return out.writeUInt16BE(payloadLength, offset);
  }
  out[offset++] = 127;
  return out.writeBigUInt64BE(BigInt(payloadLength), offset);
}

function piecesLength(pieces: readonly Buffer[]): number {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return length;
}

/** The bytes of a message once framed. */
export function framedLength(message: OutgoingMessage): number {
  if (message instanceof FramedBytes) return message.bytes.length;
  const length = piecesLength(message);
  return headerBytes(length) + length;
}

/** The bytes of `messages` once framed. */
export function framesLength(messages: readonly OutgoingMessage[]): number {
  let length = 0;
  for (const message of messages) length += framedLength(message);
  return length;
}

/** Writes `messages` into `out` (as long as their framed lengths together) as frames, one after the other. */
export function writeFrames(messages: readonly OutgoingMessage[], out: Buffer): Buffer {
  let offset = 0;
  for (const message of messages) {
    if (message instanceof FramedBytes) {
      offset += message.bytes.copy(out, offset);
      continue;
    }
    offset = writeHeader(out, offset, piecesLength(message));
    for (const piece of message) offset += piece.copy(out, offset);
  }
  return out;
}

/** The bytes of binary messages of these lengths once framed. */
export function binaryFramesLength(payloads: readonly Uint8Array[]): number {
  let length = 0;
  for (const payload of payloads) length += headerBytes(payload.length) + payload.length;
  return length;
}

/** Writes `payloads` into `out` (binaryFramesLength long) as binary frames, one after the other. */
export function writeBinaryFrames(payloads: readonly Uint8Array[], out: Buffer): Buffer {
  let offset = 0;
  for (const payload of payloads) {
    offset = writeHeader(out, offset, payload.length, BINARY);
    out.set(payload, offset);
    offset += payload.length;
  }
  return out;
}
