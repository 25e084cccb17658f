// What a fuzzed client does: steps drawn by fast-check, resolved against what the client has seen when it
// takes them (its slots, the entities in its view, the other players, its trades), so that most of them
// aim at real things, and some of them are turned into frames that break the protocol's rules.
import fc from "fast-check";
import { COMBAT_STYLES } from "../../src/game/combat.js";
import { EQUIP_SLOTS, MAX_STACK } from "../../src/game/types.js";
import { ACTIONS } from "../../src/game/world-types.js";

/** A pick among the candidates found when the step runs (taken modulo their number). */
const pick = fc.nat({ max: 1000 });

/** Quantities: ordinary ones, what the slot holds (0), and the limits around the largest stack. */
const quantity = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom(MAX_STACK, MAX_STACK - 1, 1000) },
);

/** Chat lines: plain ones, odd characters, and the admin commands (some of them wrong). */
const chatLine = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }),
  fc.constantFrom(
    "hello",
    "  padded  ",
    "🙂🙂🙂",
    "line\nbreak",
    "tab\there",
    "\u202eevil",
    "\u0000nul",
    "x".repeat(201),
    " ".repeat(5),
    "/admin",
    "/admin wrong-code",
    "/heal",
    "/tp",
    "/tp 1e9 1",
    "/tp -5 -5",
    "/tp 31 27",
    "/tp 40 40",
    "/tp 70 32",
    "/tp 1.5 2",
    "/give",
    "/give bones",
    "/give bones 2",
    "/give bones -1",
    "/give bones 2147483648",
    "/give nothing_such 1",
    "/give __proto__ 1",
    "/unknown",
  ),
  fc.constant("ADMIN"),
);

export type Step =
  | { kind: "move"; near: boolean; dx: number; dz: number; run?: boolean }
  | { kind: "action"; action: (typeof ACTIONS)[number]; target: number; slot: number; style: number }
  | { kind: "chat"; text: string }
  | { kind: "use"; slot: number; targetSlot?: number; target?: number }
  | { kind: "unequip"; slot: string }
  | { kind: "deposit"; slot: number; quantity: number }
  | { kind: "withdraw"; item: number; quantity: number }
  | { kind: "pray"; prayer: number; active: boolean }
  | { kind: "storeOpen"; walk: boolean; target: number }
  | { kind: "storeBuy"; walk: boolean; target: number; item: number; quantity: number }
  | { kind: "storeSell"; walk: boolean; target: number; slot: number; quantity: number }
  | { kind: "tradeRequest"; target: number }
  | { kind: "tradeRespond"; trade: number; accept: boolean }
  | { kind: "tradeAdd"; slot: number; quantity: number; viaWorld: boolean }
  | { kind: "tradeRemove"; slot: number; quantity?: number; viaWorld: boolean }
  | { kind: "tradeAccept"; viaWorld: boolean }
  | { kind: "tradeCancel"; trade: number; viaWorld: boolean }
  | { kind: "malformed"; base: Step; mutation: Mutation }
  | { kind: "burst"; base: Step; count: number }
  | { kind: "unknownEvent"; name: string }
  | { kind: "rawFrame"; frame: RawFrame }
  | { kind: "reconnect"; how: "logout" | "drop" | "replace"; awayMs: number }
  | { kind: "sdkOdd"; how: "number" | "bytes" | "request"; event: string }
  | { kind: "pause"; ms: number };

/** How a well-formed frame is broken: a field removed or given a wrong value, or the data replaced. */
export type Mutation =
  | { kind: "remove"; field: number }
  | { kind: "set"; field: number; value: unknown }
  | { kind: "add"; field: string; value: unknown }
  | { kind: "data"; value: unknown };

/** Values of the wrong type or out of range for some field or other. */
export const BAD_VALUES: readonly unknown[] = [
  -1,
  0.5,
  1.5,
  -0.5,
  28,
  1e21,
  -1e21,
  Number.MAX_SAFE_INTEGER,
  2 ** 31,
  -(2 ** 31),
  1_000_001,
  "",
  "3",
  "x".repeat(65),
  "__proto__",
  "constructor",
  "\u202e",
  "🙂",
  null,
  true,
  false,
  [],
  [1],
  {},
  { slot: 1 },
];

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("remove" as const), field: pick }),
  fc.record({ kind: fc.constant("set" as const), field: pick, value: fc.constantFrom(...BAD_VALUES) }),
  fc.record({
    kind: fc.constant("add" as const),
    field: fc.constantFrom("__proto__", "constructor", "extra", "toString"),
    value: fc.constantFrom(...BAD_VALUES),
  }),
  fc.record({
    kind: fc.constant("data" as const),
    value: fc.constantFrom(null, 5, "data", [], [{}], true),
  }),
);

/** Frames of the /ws channel that are not envelopes at all (SDK clients send the unknown event instead). */
export type RawFrame =
  | { kind: "text"; text: string; id?: string }
  | { kind: "binary" }
  | { kind: "oversized"; id: string };

const rawFrame: fc.Arbitrary<RawFrame> = fc.oneof(
  fc.record({
    kind: fc.constant("text" as const),
    text: fc.constantFrom(
      "not json",
      "[]",
      "null",
      "42",
      '"event"',
      "{}",
      '{"event":5}',
      '{"event":null,"data":{}}',
      '{"event":"player:move","id":5}',
      '{"event":"player:move","id":null,"data":{"x":1,"z":1}}',
      '{"event":"player:move","data":"str","id":"raw"}',
      '{"event":"__proto__","data":{},"id":"raw"}',
      '{"event":"player:move","data":{"x":31,"z":27,"__proto__":{"x":"a"}},"id":"raw"}',
      '{"event":"player:chat","data":{"message":"\\ud800"},"id":"raw"}',
      "{",
    ),
  }),
  fc.constant({ kind: "binary" as const }),
  fc.constant({ kind: "oversized" as const, id: "big" }),
);

const viaWorld = fc.boolean();
/** Whether a store step walks to the shopkeeper's counter first (mostly), so that deals are made. */
const walk = fc.oneof(
  { weight: 3, arbitrary: fc.constant(true) },
  { weight: 1, arbitrary: fc.constant(false) },
);

const wellFormed: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        kind: fc.constant("move" as const),
        // Mostly a few tiles away, so that players stay near enough to trade.
        near: fc.oneof(
          { weight: 4, arbitrary: fc.constant(true) },
          { weight: 1, arbitrary: fc.constant(false) },
        ),
        dx: fc.integer({ min: -6, max: 6 }),
        dz: fc.integer({ min: -6, max: 6 }),
        run: fc.boolean(),
      },
      { requiredKeys: ["kind", "near", "dx", "dz"] },
    ),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("action" as const),
      action: fc.constantFrom(...ACTIONS),
      target: pick,
      slot: pick,
      style: pick,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("chat" as const), text: chatLine }) },
  {
    weight: 3,
    arbitrary: fc.record(
      { kind: fc.constant("use" as const), slot: pick, targetSlot: pick, target: pick },
      { requiredKeys: ["kind", "slot"] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("unequip" as const), slot: fc.constantFrom(...EQUIP_SLOTS) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("deposit" as const), slot: pick, quantity }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("withdraw" as const), item: pick, quantity }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("pray" as const), prayer: pick, active: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("storeOpen" as const), walk, target: pick }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("storeBuy" as const),
      walk,
      target: pick,
      item: pick,
      quantity,
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("storeSell" as const),
      walk,
      target: pick,
      slot: pick,
      quantity,
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("tradeRequest" as const), target: pick }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("tradeRespond" as const), trade: pick, accept: fc.boolean() }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("tradeAdd" as const), slot: pick, quantity, viaWorld }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { kind: fc.constant("tradeRemove" as const), slot: pick, quantity, viaWorld },
      { requiredKeys: ["kind", "slot", "viaWorld"] },
    ),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("tradeAccept" as const), viaWorld }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("tradeCancel" as const), trade: pick, viaWorld }),
  },
);

export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: wellFormed },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("malformed" as const), base: wellFormed, mutation }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("unknownEvent" as const),
      name: fc.constantFrom(
        "player:Move",
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        "world:update",
        "player:sync",
        "tradeCompleted",
        "error",
        "",
        "x".repeat(300),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rawFrame" as const), frame: rawFrame }) },
  {
    // The same frame many times at once: past the message limit where it is the default one.
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("burst" as const),
      base: wellFormed,
      count: fc.integer({ min: 10, max: 80 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("reconnect" as const),
      how: fc.constantFrom("logout" as const, "drop" as const, "replace" as const),
      awayMs: fc.integer({ min: 0, max: 400 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("pause" as const), ms: fc.integer({ min: 0, max: 300 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("sdkOdd" as const),
      how: fc.constantFrom("number" as const, "bytes" as const, "request" as const),
      event: fc.constantFrom(
        "player:move",
        "player:chat",
        "tradeAccept",
        "bank:deposit",
        "store:sell",
        "nothing",
      ),
    }),
  },
);

/** One fuzzed player: how it connects, how it treats trades offered to it, and what it does. */
export interface ClientPlan {
  channel: "ws" | "sdk-state" | "sdk-messages";
  /** Accepts what it is offered and accepts trades on both screens, so that some trades complete. */
  eager: boolean;
  /** Whether it becomes an admin first (so /tp, /heal and /give do something). */
  admin: boolean;
  /** Seeds what an eager trader picks when it answers. */
  seed: number;
  steps: { step: Step; delayMs: number }[];
}

export const clientPlan = (channel: ClientPlan["channel"]): fc.Arbitrary<ClientPlan> =>
  fc.record({
    channel: fc.constant(channel),
    eager: fc.boolean(),
    admin: fc.boolean(),
    seed: fc.integer(),
    steps: fc.array(fc.record({ step, delayMs: fc.integer({ min: 0, max: 60 }) }), {
      minLength: 20,
      maxLength: 120,
    }),
  });

/** A run: a few /ws clients and a few SDK clients, each with its plan, playing at once. */
export const runPlan = fc.tuple(
  clientPlan("ws"),
  clientPlan("ws"),
  clientPlan("ws"),
  clientPlan("sdk-state"),
  clientPlan("sdk-messages"),
  clientPlan("sdk-state"),
);

export { COMBAT_STYLES };
