import { type Options, Packr } from "msgpackr";
import type { WorldEntity } from "../game/world-types.js";

// Colyseus's room messages are msgpack. A world:update lists entities that many clients are sent in one
// tick, in many different updates; packing each update whole would pack an entity once for every update
// that lists it. So each entity is packed once, and an update is assembled from those bytes: msgpack's
// map and array headers around them, written here.

/**
 * Plain msgpack, as Colyseus packs its messages. A field set to undefined is left out, as JSON leaves it
 * out (`skipValues` is msgpackr's, missing from its typings).
 */
const packr = new Packr({ useRecords: false, skipValues: [undefined] } as Options);

/** An entity's msgpack (`null` for one gone, as its JSON would be). */
export function packEntity(entity: WorldEntity | null): Buffer {
  // msgpackr hands out regions of its working buffer: a copy keeps an entity that stays unchanged for
  // long from holding that whole buffer in memory.
  return Buffer.from(packr.pack(entity));
}

const MAP_OF_FOUR = 0x84;
const KEYS = {
  tick: Buffer.from(packr.pack("tick")),
  added: Buffer.from(packr.pack("added")),
  updated: Buffer.from(packr.pack("updated")),
  removed: Buffer.from(packr.pack("removed")),
};

/**
 * The protocol's world:update `{tick, added, updated, removed}` as msgpack, from the entities' own msgpack:
 * the same value, key for key, that unpacking it or parsing the update's JSON gives. It comes after
 * `head` (a room message's own header), in one buffer.
 */
export function packWorldUpdate(
  head: Uint8Array,
  tick: number,
  added: readonly Uint8Array[],
  updated: readonly Uint8Array[],
  removed: readonly string[],
): Buffer {
  const tickBytes = packr.pack(tick);
  const removedBytes = packr.pack(removed);
  const length =
    head.length +
    1 +
    KEYS.tick.length +
    tickBytes.length +
    KEYS.added.length +
    listLength(added) +
    KEYS.updated.length +
    listLength(updated) +
    KEYS.removed.length +
    removedBytes.length;
  const out = Buffer.allocUnsafe(length);
  out.set(head, 0);
  let offset = head.length;
  out[offset++] = MAP_OF_FOUR;
  offset += KEYS.tick.copy(out, offset);
  out.set(tickBytes, offset);
  offset += tickBytes.length;
  offset += KEYS.added.copy(out, offset);
  offset = writeList(out, offset, added);
  offset += KEYS.updated.copy(out, offset);
  offset = writeList(out, offset, updated);
  offset += KEYS.removed.copy(out, offset);
  out.set(removedBytes, offset);
  return out;
}

function arrayHeaderBytes(count: number): number {
  return count < 16 ? 1 : count < 65536 ? 3 : 5;
}

function listLength(items: readonly Uint8Array[]): number {
  let length = arrayHeaderBytes(items.length);
  for (const item of items) length += item.length;
  return length;
}

/** An array of already packed values: its header (fixarray, array 16 or array 32), then the values. */
function writeList(out: Buffer, offset: number, items: readonly Uint8Array[]): number {
  const count = items.length;
  if (count < 16) {
    out[offset++] = 0x90 | count;
  } else if (count < 65536) {
    out[offset++] = 0xdc;
    offset = out.writeUInt16BE(count, offset);
  } else {
    out[offset++] = 0xdd;
    offset = out.writeUInt32BE(count, offset);
  }
  for (const item of items) {
    out.set(item, offset);
    offset += item.length;
  }
  return offset;
}
