// Fuzzes the client protocols through real connections: several /ws and SDK clients at once send random
// sequences of frames, well-formed ones aimed at real things and ones that break the rules, and drop and
// come back, and deal at the starting area's store. The server must log no error, keep answering and
// keep its world, refuse every broken frame with an `error`, and neither make nor lose an item (the
// stores' deals counted at their prices); and the database must hold what the world holds.
//
// Replay a failure with the seed it prints: FUZZ_SEED=<seed> (FUZZ_RUNS=<n> runs more plans);
// FUZZ_SEED=random draws new plans.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { matchMaker } from "@colyseus/core";
import fc from "fast-check";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { groundItems } from "../../src/db/schema.js";
import type { CharacterState } from "../../src/game/character-state.js";
import { SERVER_SPEAKER } from "../../src/game/chat.js";
import { MAX_STACK } from "../../src/game/types.js";
import { inViewFrom } from "../../src/game/view-index.js";
import type { World } from "../../src/game/world.js";
import type { WorldRoom } from "../../src/rooms/WorldRoom.js";
import { findWorld } from "../../src/rooms/world-listing.js";
import { GENEROUS_LIMITS } from "../api/support.js";
import { plainCharacter } from "../support/characters.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { sleep } from "../support/players.js";
import { recordingLogger } from "../support/recording-logger.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectNewPlayer } from "../support/ws-client.js";
import { type Expectation, FuzzClient } from "./clients.js";
import { ItemLedger } from "./item-ledger.js";
import { type ClientPlan, runPlan } from "./steps.js";

/** The suite's plan (one seed the fuzzing ran clean with, whose players both buy and sell at the store). */
const DEFAULT_SEED = 20261175;

const ADMIN_CODE = "fuzz-admin";
/** How long the clients play in each run. */
const PLAY_MS = Number(process.env.FUZZ_PLAY_MS ?? 2500);
/** How many plans each variant runs. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2);
/** A run plays PLAY_MS, then checks the world and the database; more runs are given more time. */
const TIMEOUT_MS = 80_000 + RUNS * (PLAY_MS + 17_500);
/** The item admins may /give: it is left out of the count, as giving makes it. */
const GIVEN_ITEM = "bones";
/** Beside the starting area's bank booth at (30,26). */
const BY_THE_BANK = { x: 31, z: 27 };
/** Beside the starting area's shopkeeper at (22,30), eight tiles away: within trading distance of the bank. */
const BY_THE_STORE = { x: 23, z: 30 };
/**
 * What every store sells here: nothing the fuzzed players could use up or make something of (the
 * general store's axes, nets and food would become logs and fish, or be eaten), and a helm like theirs,
 * so that what they sell goes back on a shelf (helms) or nowhere (swords).
 */
const WARES = [
  { itemId: "tinderbox", stock: 30, price: 1 },
  { itemId: "hammer", stock: 10, price: 1 },
  { itemId: "bronze_full_helm", stock: 10, price: 20 },
];

/**
 * Items no action the fuzzed players can take makes or uses up (they carry no tool, food, logs or ore).
 * Some players carry a full inventory, some stacks near the largest a slot or the bank holds: the edges
 * where an unequip, a withdrawal, a pick-up, a trade or a deal must refuse rather than lose or make
 * items. Every other player starts at the store's counter, so that deals are made from the first steps.
 */
function fuzzedCharacter(id: string, name: string, index: number): CharacterState {
  const kits: Pick<CharacterState, "inventory" | "bank" | "equipment">[] = [
    {
      inventory: [
        { slot: 0, itemId: "coins", quantity: 1000 },
        { slot: 1, itemId: "bronze_sword", quantity: 1 },
        { slot: 2, itemId: "bronze_full_helm", quantity: 1 },
        { slot: 3, itemId: "guild_token", quantity: 5 },
        { slot: 4, itemId: "feather", quantity: 50 },
        { slot: 6, itemId: "bronze_sword", quantity: 1 },
      ],
      bank: [
        { itemId: "coins", quantity: 300 },
        { itemId: "feather", quantity: 20 },
        { itemId: "bronze_full_helm", quantity: 1 },
      ],
      equipment: { weapon: "bronze_sword" },
    },
    {
      // Every slot taken: nothing more fits but onto the stacks. Too few coins for a helm from the store.
      inventory: [
        { slot: 0, itemId: "coins", quantity: 15 },
        { slot: 1, itemId: "guild_token", quantity: 2 },
        { slot: 2, itemId: "feather", quantity: 7 },
        ...Array.from({ length: 25 }, (_, i) => ({
          slot: i + 3,
          itemId: i % 2 === 0 ? "bronze_sword" : "bronze_full_helm",
          quantity: 1,
        })),
      ],
      bank: [{ itemId: "bronze_sword", quantity: 3 }],
      equipment: { weapon: "bronze_sword", head: "bronze_full_helm" },
    },
    {
      // Stacks a few coins short of the largest stack, in the inventory and in the bank.
      inventory: [
        { slot: 0, itemId: "coins", quantity: MAX_STACK - 3 },
        { slot: 5, itemId: "feather", quantity: MAX_STACK - 1 },
        { slot: 9, itemId: "bronze_full_helm", quantity: 1 },
      ],
      bank: [
        { itemId: "coins", quantity: MAX_STACK - 2 },
        { itemId: "feather", quantity: MAX_STACK },
      ],
      equipment: {},
    },
  ];
  const position = index % 2 === 0 ? BY_THE_BANK : BY_THE_STORE;
  return plainCharacter(id, { name, position, ...kits[index % kits.length]! });
}

const sortedInventory = (inventory: CharacterState["inventory"]) =>
  [...inventory].sort((a, b) => a.slot - b.slot);
const sortedBank = (bank: CharacterState["bank"]) =>
  [...bank].sort((a, b) => a.itemId.localeCompare(b.itemId));

/** The totals of items changed by what came into the count (positive) and left it (negative). */
function withFlows(totals: Record<string, number>, flows: ReadonlyMap<string, number>) {
  const changed = new Map(Object.entries(totals));
  for (const [itemId, units] of flows)
    if (itemId !== GIVEN_ITEM) changed.set(itemId, (changed.get(itemId) ?? 0) + units);
  return Object.fromEntries([...changed].filter(([, quantity]) => quantity !== 0));
}

/** What the clients were answered, by event (and error code): how much of the game a run reached. */
function summary(clients: readonly FuzzClient[]): string {
  const counts = new Map<string, number>();
  for (const client of clients)
    for (const { event, data } of client.received) {
      const key =
        event === "error" || event === "tradeError" || event === "tradeCancelled"
          ? `${event}:${data?.code ?? data?.reason}`
          : event;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  const sessions = clients.map((client) => client.session).join(",");
  return `sessions ${sessions}; ${[...counts]
    .sort()
    .map(([key, n]) => `${key}=${n}`)
    .join(" ")}`;
}

/** docs/protocol.md's server events. */
const SERVER_EVENTS = new Set([
  "player:sync",
  "world:update",
  "combat:hit",
  "skill:xp",
  "chat:message",
  "error",
  "store:stock",
  "player:energy",
  "tradeRequestSent",
  "tradeIncoming",
  "tradeStarted",
  "tradeUpdated",
  "tradeConfirmScreen",
  "tradeCompleted",
  "tradeCancelled",
  "tradeError",
]);

/** The embedded database always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
const BACKENDS = ["PGlite", ...(postgresUrl ? ["PostgreSQL"] : [])] as const;

/**
 * Generous limits let every frame through, so that each broken one can be checked for its answer; the
 * default message limit (PGlite only) lets bursts be refused and dropped, and floods be closed (4429).
 */
const VARIANTS = [
  ...BACKENDS.map((backend) => ({ backend, messageLimit: "generous" as const })),
  { backend: "PGlite" as const, messageLimit: "default" as const },
];

for (const { backend, messageLimit } of VARIANTS)
  describe(`protocol fuzzing through real /ws and SDK connections (${backend}, ${messageLimit} message limit)`, function () {
    this.timeout(TIMEOUT_MS);
    const { logger, lines: logLines } = recordingLogger("warn");
    const uncaught: unknown[] = [];
    const recordUncaught = (error: unknown) => uncaught.push(error);
    let server: TestServer;
    /** Every fuzzed character so far: items may move between runs' players through the ground. */
    const characterIds: string[] = [];
    let names = 0;

    let database: { url: string; drop(): Promise<void> } | undefined;

    before(async () => {
      if (backend === "PostgreSQL") database = await freshDatabaseUrl(postgresUrl!);
      server = await startTestServer(
        {
          WORLD_TICK_MS: "50",
          ADMIN_CODE,
          RECONNECT_SECONDS: "1",
          ...(messageLimit === "generous" && { RATE_LIMIT_WS_PER_SEC: "100000" }),
          ...GENEROUS_LIMITS,
          ...(database && { DATABASE_URL: database.url }),
        },
        {
          logger,
          // Monsters drop nothing here, so that a kill makes no item and every item can be counted; stores
          // sell the WARES.
          beforeBoot: (runtime) => {
            const { npcs, stores } = runtime.gameData;
            runtime.gameData = {
              ...runtime.gameData,
              npcs: new Map([...npcs].map(([id, npc]) => [id, { ...npc, drops: [] }])),
              stores: new Map([...stores].map(([id, store]) => [id, { ...store, items: WARES }])),
            };
          },
        },
      );
      process.on("uncaughtException", recordUncaught);
      process.on("unhandledRejection", recordUncaught);
    });
    after(async () => {
      process.off("uncaughtException", recordUncaught);
      process.off("unhandledRejection", recordUncaught);
      await server?.stop();
      await database?.drop();
    });

    const worldRoom = async () => {
      const listed = await findWorld();
      assert.ok(listed, "the world is listed");
      const room = matchMaker.getLocalRoomById(listed.roomId) as WorldRoom | undefined;
      assert.ok(room, "the world runs in this process");
      return room;
    };
    const worldOf = (room: WorldRoom) => (room as unknown as { world: World }).world;

    /**
     * Every unit of every item: the characters' stored inventories, banks and equipment, and the world's
     * ground items. The ground is read last, in the turn that starts or stops the run's ledger (no tick
     * comes between), so that an item that despawns is counted either on the ground or as gone.
     */
    const itemTotals = async (world: World) => {
      const totals = new Map<string, number>();
      const count = (itemId: string, quantity: number) => {
        if (itemId === GIVEN_ITEM) return;
        assert.ok(Number.isInteger(quantity) && quantity >= 1, `${itemId} x${quantity} is stored`);
        totals.set(itemId, (totals.get(itemId) ?? 0) + quantity);
      };
      for (const id of characterIds) {
        const character = await server.runtime.characters.load(id);
        assert.ok(character, `character ${id} is stored`);
        for (const entry of character.inventory) count(entry.itemId, entry.quantity);
        for (const row of character.bank) count(row.itemId, row.quantity);
        for (const itemId of Object.values(character.equipment)) if (itemId) count(itemId, 1);
      }
      for (const id of world.groundItemIds()) {
        const { itemId, quantity } = world.groundItem(id)!;
        count(itemId, quantity);
      }
      return Object.fromEntries([...totals].sort(([a], [b]) => a.localeCompare(b)));
    };

    async function createPlayers(plans: readonly ClientPlan[]) {
      return Promise.all(
        plans.map(async (plan, index) => {
          const { token, subject } = await issueAnonymousToken(server.runtime.jwtSecret);
          const account = await server.runtime.accounts.findOrCreate(subject, "anonymous");
          const id = randomUUID();
          names += 1;
          await server.runtime.characters.create(account.id, fuzzedCharacter(id, `Fuzz${names}`, index));
          characterIds.push(id);
          return { id, token, plan };
        }),
      );
    }

    /** Polls until `check` passes (it throws while it does not); fails with its last failure. */
    async function eventually(check: () => Promise<void>, timeoutMs: number): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          await check();
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await sleep(50);
        }
      }
    }

    /** The world's view of each online player's items equals the database's rows. */
    async function worldMatchesDatabase(world: World, ids: readonly string[]): Promise<void> {
      for (const id of ids) {
        if (!world.has(id)) continue;
        const live = world.peek(id);
        const stored = await server.runtime.characters.load(id);
        assert.ok(stored);
        const items = (state: Pick<CharacterState, "inventory" | "bank" | "equipment">) => ({
          inventory: sortedInventory(state.inventory),
          bank: sortedBank(state.bank),
          equipment: state.equipment,
        });
        assert.deepEqual(
          items(stored),
          items(live),
          `the database holds player ${id}'s items as the world does`,
        );
      }
    }

    /** The world's ground items equal the stored rows. */
    async function groundMatchesDatabase(world: World): Promise<void> {
      const live = world
        .groundItemIds()
        .map((id) => world.groundItem(id)!)
        .map(({ id, itemId, quantity, position }) => ({ id, itemId, quantity, x: position.x, z: position.z }))
        .sort((a, b) => a.id.localeCompare(b.id));
      const rows = (await server.runtime.database.db.select().from(groundItems))
        .map(({ id, itemId, quantity, x, z }) => ({ id, itemId, quantity, x, z }))
        .sort((a, b) => a.id.localeCompare(b.id));
      assert.deepEqual(rows, live, "the stored ground items are the world's");
    }

    /**
     * Every frame that broke the rules was answered with its `error`, and with nothing else; and on /ws,
     * every store frame with an `error` or with what it did.
     */
    function framesAnswered(client: FuzzClient): void {
      // Frames over the message limit are dropped unanswered, as documented.
      if (client.rateLimited) return;
      // A frame sent just before its connection closed may never have been read: only those whose
      // connection stayed open a while after them are counted.
      const settled = (expectation: Expectation) =>
        (client.closedAfter(expectation) ?? Number.POSITIVE_INFINITY) - expectation.sentAt >= 1500;
      const checked = client.expectations.filter(settled);
      if (client.channel === "ws") {
        for (const expectation of checked.filter((e) => e.id !== undefined)) {
          const replies = client.received.filter(
            (r) => r.session === expectation.session && r.id === expectation.id,
          );
          const { code, answer } = expectation;
          // A purchase or sale that came up short first says why, in a server notice answering it too.
          const notice = (r: (typeof replies)[number]) =>
            answer === "player:sync" &&
            r.event === "chat:message" &&
            r.data?.fromPlayerId === SERVER_SPEAKER.id;
          const answers = replies.filter((r, i) => !(i === 0 && replies.length === 2 && notice(r)));
          const codes = replies.map((r) => `${r.event}:${r.data?.code ?? ""}`);
          const fits = (reply: string) =>
            reply === `error:${code}` ||
            (code === "*" && reply.startsWith("error:")) ||
            reply === `${answer}:`;
          assert.ok(
            answers.length === 1 && fits(`${answers[0]!.event}:${answers[0]!.data?.code ?? ""}`),
            `client ${client.index} (/ws): ${expectation.frame} was answered with [${codes.join(", ")}], not one error ${code}${answer ? ` or ${answer}` : ""}`,
          );
        }
        const withoutId = checked.filter((e) => e.id === undefined);
        for (const session of new Set(withoutId.map((e) => e.session))) {
          const expected = withoutId.filter((e) => e.session === session).length;
          const answered = client.received.filter(
            (r) => r.session === session && r.event === "error" && r.id === undefined,
          ).length;
          assert.ok(
            answered >= expected,
            `client ${client.index}: ${expected} unreadable frames, ${answered} errors`,
          );
        }
        return;
      }
      const key = (route: string, event: string, code: string) => `${route} ${event} ${code}`;
      const expected = new Map<string, number>();
      for (const e of checked)
        expected.set(key(e.route, e.event, e.code), (expected.get(key(e.route, e.event, e.code)) ?? 0) + 1);
      const answered = new Map<string, number>();
      for (const r of client.received)
        if (r.event === "error") {
          const k = key(r.from, r.data?.event, r.data?.code);
          answered.set(k, (answered.get(k) ?? 0) + 1);
        }
      for (const [what, count] of expected)
        assert.ok(
          (answered.get(what) ?? 0) >= count,
          `client ${client.index} (${client.channel}): ${count} frames "${what}" sent, ${answered.get(what) ?? 0} refused`,
        );
    }

    async function runOnce(plans: readonly ClientPlan[]): Promise<void> {
      const room = await worldRoom();
      const world = worldOf(room);
      const players = await createPlayers(plans);
      const before = await itemTotals(world);
      const ledger = new ItemLedger(world);
      const clients: FuzzClient[] = players.map(
        ({ id, token, plan }, index) =>
          new FuzzClient(index, id, token, plan, server, ADMIN_CODE, () =>
            clients.filter((c) => c.id !== id),
          ),
      );
      const firstLogLine = logLines.length;
      try {
        await Promise.all(clients.map((client) => client.connect()));
        const deadline = Date.now() + PLAY_MS;
        await Promise.all(clients.map((client) => client.play(deadline)));
        await Promise.all(clients.map((client) => client.stop()));
        // A client closed for flooding is closed again at its first frame until its block ends: each
        // connects again until it stays.
        await eventually(async () => {
          await Promise.all(clients.map((client) => client.ensureConnected()));
          await sleep(300);
          for (const client of clients) assert.ok(client.connected, `client ${client.index} is connected`);
        }, 10_000);

        // Once what the last frames started has played out, the database holds what the world holds.
        await eventually(
          () =>
            worldMatchesDatabase(
              world,
              players.map((p) => p.id),
            ),
          5000,
        );
        await groundMatchesDatabase(world);
        await sleep(300);
        // Each client draws the players in its view, where the world has them.
        await eventually(async () => {
          for (const client of clients) {
            const at = world.positionOf(client.id);
            assert.ok(at, `player ${client.id} is in the world`);
            const inView = clients
              .filter((other) => {
                const there = world.positionOf(other.id);
                return there !== undefined && inViewFrom(at, there);
              })
              .map((other) => other.id)
              .sort();
            assert.deepEqual(
              client.drawnPlayers(),
              inView,
              `client ${client.index} (${client.channel}) draws the players in its view`,
            );
          }
        }, 5000);
        // What each client was last told of its own items is what it holds.
        for (const client of clients) {
          const live = world.peek(client.id);
          const told = client.received
            .filter((r) => r.session === client.session && r.event === "player:sync")
            .at(-1)?.data;
          assert.ok(told, `client ${client.index} was sent its player:sync`);
          assert.deepEqual(
            {
              inventory: sortedInventory(told.inventory),
              equipment: told.equipment,
              bank: sortedBank(told.bank),
            },
            {
              inventory: sortedInventory(live.inventory),
              equipment: live.equipment,
              bank: sortedBank(live.bank),
            },
            `client ${client.index} (${client.channel}) was last told its items as they are`,
          );
        }
        for (const client of clients) {
          framesAnswered(client);
          const strange = client.received
            .filter(({ event }) => !SERVER_EVENTS.has(event))
            .map((r) => r.event);
          assert.deepEqual(strange, [], `client ${client.index} was sent only the protocol's events`);
        }
        for (const client of clients)
          assert.deepEqual(
            client.stateProblems,
            [],
            `client ${client.index} (${client.channel}) could read every patch`,
          );

        if (process.env.FUZZ_VERBOSE)
          console.log(`${summary(clients)}; deals: ${JSON.stringify(Object.fromEntries(ledger.deals))}`);
        await Promise.all(clients.map((client) => client.leave()));
        const persistence = (room as unknown as { persistence: { settled(id: string): Promise<unknown> } })
          .persistence;
        await eventually(async () => {
          for (const { id } of players) assert.equal(world.has(id), false, `player ${id} has left the world`);
        }, 5000);
        await Promise.all(players.map(({ id }) => persistence.settled(id)));
        await groundMatchesDatabase(world);
        const after = await itemTotals(world);
        ledger.stop();
        assert.deepEqual(ledger.problems, [], "each store's shelf moved by its deals and restocks only");
        assert.deepEqual(
          after,
          withFlows(before, ledger.flows),
          "every item is where the players left it, went to or came from a store at its price or despawned; none made or lost",
        );

        // The server still answers, with the same world.
        assert.equal((await fetch(`${server.baseUrl}/health`)).status, 200);
        const probe = await connectNewPlayer(server);
        await probe.client.close();
        assert.equal((await worldRoom()).roomId, room.roomId, "the world that was fuzzed is still the one");
        const errors = logLines.slice(firstLogLine).filter((line) => line.level >= 50);
        assert.deepEqual(errors, [], "the server logged no error");
        assert.deepEqual(uncaught, [], "nothing was thrown unhandled");
      } catch (error) {
        for (const client of clients)
          console.log(
            `client ${client.index} (${client.channel}, player ${client.id}, sessions ended ${JSON.stringify([...client.sessionEnds])}) sent:\n  ${client.sent.slice(-40).join("\n  ")}`,
          );
        throw error;
      } finally {
        ledger.stop();
        await Promise.all(clients.map((client) => client.leave().catch(() => {})));
      }
    }

    it("keeps every rule, item and answer whatever several clients send at once", async () => {
      // A fixed plan by default, so that the suite (and CI) runs the same frames every time; FUZZ_SEED=random
      // explores new ones.
      const seed =
        process.env.FUZZ_SEED === "random"
          ? Math.floor(Math.random() * 2 ** 31)
          : Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
      // Said now: a run that hangs past the timeout ends without fast-check's report.
      if (process.env.FUZZ_SEED === "random") console.log(`      FUZZ_SEED=${seed}`);
      try {
        await fc.assert(
          fc.asyncProperty(runPlan, (plans) => runOnce(plans)),
          { seed, numRuns: RUNS, endOnFailure: true },
        );
      } catch (error) {
        // fast-check's report names the seed and the whole plan; the failure itself is its cause.
        const { message, cause } = error as Error;
        const failure = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
        throw new Error(
          `protocol fuzzing failed: replay with FUZZ_SEED=${seed}\n${failure}\n\n${message.slice(0, 3000)}`,
        );
      }
    });
  });
