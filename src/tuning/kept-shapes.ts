/**
 * The last object made of each kind that a tick makes and drops by the end of its publish: kept until
 * the next one of its kind. The room collects the old generation fully between ticks (see
 * rooms/tick-garbage.ts), when none of them is alive; V8 then drops their shapes, and with them ("weak
 * objects") the optimized code that knew those shapes, which it compiles again in later ticks. At 2,000
 * players the views bench threw away the optimized code of 45 functions that way in 90 ticks (of 7 with
 * one of each kind kept), and its tick p50 was 2 to 3 ms above what it is with V8's own collections.
 * Those 7 included `flushFrames`, `flush` and `seenFrom` (`--trace-deopt`: "weak objects"), whose
 * compiles take the helper threads up to 11 ms each: the writes, payloads and near kinds keep them.
 */
const kept: Record<ShapeKind, object | undefined> = {
  batch: undefined,
  frames: undefined,
  event: undefined,
  json: undefined,
  near: undefined,
  payloads: undefined,
  writes: undefined,
};

export type ShapeKind = "batch" | "frames" | "event" | "json" | "near" | "payloads" | "writes";

/** Keeps `object` (of a kind that must have one shape: every field set in its constructor) alive. */
export function keepShapeOf(kind: ShapeKind, object: object): void {
  kept[kind] = object;
}
