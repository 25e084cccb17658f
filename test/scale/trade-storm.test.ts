import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Client, type Room } from "@colyseus/sdk";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { CharacterRepository } from "../../src/db/characters.js";
import { openDatabase } from "../../src/db/database.js";
import { TradeRepository } from "../../src/db/trades.js";
import { seededRandom } from "../../src/game/random.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import { countOf } from "../rooms/world-helpers.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { leave, sleep } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, startServerProcess } from "../support/processes.js";

const PORT = PROCESS_PORTS.tradeStorm;
const ADMIN_CODE = "storm";
const PLAYERS = 10;
const STORM_MS = 6000;
/** A storm lasts STORM_MS, or longer on a machine slow to complete trades, but never longer than this. */
const STORM_MAX_MS = 40000;
/** Beside the starting area's bank booth, so deposits (items used mid-trade) are allowed. */
const BANK_TILES = [
  { x: 31, z: 27 },
  { x: 31, z: 26 },
  { x: 31, z: 25 },
  { x: 29, z: 27 },
];

type Totals = Map<string, number>;

/**
 * A player that trades with whoever asks and whoever it asks, offers random items, sometimes cancels,
 * banks items in the middle of its trades and sometimes drops its connection.
 */
class Bot {
  id = "";
  sync!: PlayerSync;
  world!: Room;
  trade?: Room;
  readonly completed: string[] = [];
  /** The server said the admin code was taken. */
  private admin = false;
  private stopped = false;
  /** The server is about to be killed: failing requests end the bot's play instead of the test. */
  private outage = false;

  constructor(
    private readonly sdk: Client,
    private readonly random: () => number,
    private readonly others: () => Bot[],
  ) {}

  async join(): Promise<void> {
    const world = await this.sdk.joinOrCreate("world");
    this.world = world;
    let synced = false;
    world.onMessage("*", (event, data) => {
      this.onWorldEvent(String(event), data);
      if (event === "player:sync") synced = true;
    });
    // A server killed between the seat and the first player:sync never sends it: a bot stopped then
    // waits no more (the storm's end waits for every bot).
    await this.until(() => synced || this.stopped, "sent its first player:sync");
  }

  /** Gives the bot its goods and takes it to `tile`; resolves once the goods are stored. */
  async prepare(tile: { x: number; z: number }): Promise<void> {
    const shrimps = countOf(this.sync, "shrimps");
    this.world.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await this.until(() => this.admin, "made an admin");
    for (const command of [
      "/give coins 1000",
      "/give logs 4",
      "/give shrimps 3",
      `/tp ${tile.x} ${tile.z}`,
    ]) {
      this.world.send("player:chat", { message: command });
    }
    // The last gift's player:sync is sent once its tick is written: the storm's starting totals are.
    await this.until(() => countOf(this.sync, "shrimps") === shrimps + 3, "given its goods");
  }

  private async until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 20000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`${this.id} was not ${what}`);
      await sleep(20);
    }
  }

  /** Plays until the deadline, or until the server stops answering. */
  async storm(until: number): Promise<void> {
    try {
      await this.play(until);
    } catch (error) {
      if (!this.stopped && !this.outage) throw error;
    }
  }

  private async play(until: number): Promise<void> {
    while (Date.now() < until && !this.stopped) {
      const roll = this.random();
      if (roll < 0.35 && !this.trade) {
        const partners = this.others().filter((bot) => bot !== this);
        const partner = partners[Math.floor(this.random() * partners.length)];
        if (partner) this.world.send("tradeRequest", { targetPlayerId: partner.id });
      } else if (roll < 0.55) {
        const entry = this.sync.inventory[Math.floor(this.random() * this.sync.inventory.length)];
        if (entry) this.world.send("bank:deposit", { inventorySlot: entry.slot, quantity: 1 });
      } else if (roll < 0.58) {
        await this.dropAndReconnect();
      }
      await sleep(60 + this.random() * 120);
    }
  }

  stop(): void {
    this.stopped = true;
  }

  expectOutage(): void {
    this.outage = true;
  }

  async quit(): Promise<void> {
    this.stop();
    await Promise.all([leave(this.trade), leave(this.world)]);
  }

  private async dropAndReconnect(): Promise<void> {
    const token = this.world.reconnectionToken;
    this.world.connection.close(4010);
    await sleep(200);
    try {
      this.world = await this.sdk.reconnect(token);
      this.world.onMessage("*", (event, data) => this.onWorldEvent(String(event), data));
    } catch {
      await this.join();
    }
  }

  private onWorldEvent(event: string, data: any): void {
    if (event === "player:sync") {
      this.sync = data;
      this.id = data.id;
    } else if (event === "chat:message" && data.fromPlayerId === "server") {
      this.admin = true;
    } else if (event === "tradeIncoming") {
      this.world.send("tradeRequestRespond", { tradeId: data.tradeId, accept: this.random() < 0.8 });
    } else if (event === "tradeStarted") {
      void this.enterTrade(data.tradeId);
    }
  }

  private async enterTrade(tradeId: string): Promise<void> {
    try {
      const trade = await this.sdk.joinById(tradeId);
      this.trade = trade;
      trade.onMessage("*", (event, data) => this.onTradeEvent(trade, tradeId, String(event), data));
      trade.onLeave(() => {
        if (this.trade === trade) this.trade = undefined;
      });
      const offers = 1 + Math.floor(this.random() * 2);
      for (let i = 0; i < offers; i++) {
        const entry = this.sync.inventory[Math.floor(this.random() * this.sync.inventory.length)];
        if (entry) trade.send("tradeAddItem", { tradeId, inventorySlot: entry.slot, quantity: 1 });
      }
      trade.send("tradeAccept", { tradeId });
    } catch {
      // The trade ended before this bot could join it (its partner dropped or cancelled).
    }
  }

  private onTradeEvent(trade: Room, tradeId: string, event: string, data: any): void {
    if (event === "tradeUpdated" && !data.myAccepted) {
      trade.send("tradeAccept", { tradeId });
    } else if (event === "tradeConfirmScreen") {
      trade.send(this.random() < 0.85 ? "tradeAccept" : "tradeCancel", { tradeId });
    } else if (event === "tradeCompleted") {
      this.completed.push(tradeId);
    }
  }
}

const withPostgres = postgresUrl ? describe : describe.skip;

withPostgres("a storm of trades through the server, on PostgreSQL (TEST_DATABASE_URL)", function () {
  this.timeout(120000);
  const secret = randomBytes(32).toString("hex");
  let database: { url: string; drop(): Promise<void> };
  let server: ServerProcess | undefined;
  const env = () => ({
    DATABASE_URL: database.url,
    JWT_SECRET: secret,
    ADMIN_CODE,
    WORLD_TICK_MS: "100",
    // Every bot comes from this address, and drops and joins again many times a minute.
    RATE_LIMIT_REST_PER_MIN: "100000",
    RATE_LIMIT_WS_PER_SEC: "1000",
    DATA_DIR: `/tmp/tileworld-storm-${PORT}`,
  });

  beforeEach(async () => {
    database = await freshDatabaseUrl(postgresUrl!);
    server = await startServerProcess(PORT, env());
  });
  afterEach(async () => {
    await server?.stop();
    await database.drop();
  });

  async function startBots(seed: number): Promise<Bot[]> {
    const random = seededRandom(seed);
    const bots: Bot[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const sdk = new Client(server!.baseUrl);
      sdk.auth.token = (await issueAnonymousToken(new TextEncoder().encode(secret))).token;
      const bot = new Bot(sdk, random, () => bots);
      await bot.join();
      bots.push(bot);
    }
    await Promise.all(bots.map((bot, i) => bot.prepare(BANK_TILES[i % BANK_TILES.length]!)));
    return bots;
  }

  /** Starts the bots' storm; it goes on until they are stopped, STORM_MAX_MS at most. */
  function storm(bots: Bot[]): Promise<unknown> {
    return Promise.all(bots.map((bot) => bot.storm(Date.now() + STORM_MAX_MS)));
  }

  /**
   * Waits `ms`, and on until the bots have seen more than `trades` trades complete (a loaded machine
   * completes fewer in the time), STORM_MAX_MS at most.
   */
  async function stormFor(bots: Bot[], ms: number, trades: number): Promise<void> {
    const started = Date.now();
    const completed = () => new Set(bots.flatMap((bot) => bot.completed)).size;
    while ((Date.now() - started < ms || completed() <= trades) && Date.now() - started < STORM_MAX_MS)
      await sleep(100);
  }

  async function inspect(ids: string[]) {
    const handle = await openDatabase({ url: database.url });
    try {
      const characters = new CharacterRepository(handle.db);
      const trades = new TradeRepository(handle.db);
      const totals = new Map<string, Totals>();
      for (const id of ids) {
        const state = await characters.load(id);
        assert.ok(state, `character ${id} stored`);
        const own: Totals = new Map();
        for (const { itemId, quantity } of [...state.inventory, ...state.bank]) {
          assert.ok(Number.isInteger(quantity) && quantity > 0, `${id} holds ${quantity} ${itemId}`);
          own.set(itemId, (own.get(itemId) ?? 0) + quantity);
        }
        const slots = state.inventory.map((entry) => entry.slot);
        assert.equal(new Set(slots).size, slots.length, `${id} has no two stacks in one slot`);
        totals.set(id, own);
      }
      const history = new Map(
        (await Promise.all(ids.map((id) => trades.history(id)))).flat().map((t) => [t.id, t]),
      );
      return { totals, history: [...history.values()] };
    } finally {
      await handle.close();
    }
  }

  /** Every character holds what it started with, plus what the history says it received, minus what it gave. */
  function assertHistoryExplains(before: Map<string, Totals>, after: Awaited<ReturnType<typeof inspect>>) {
    const expected = new Map([...before].map(([id, totals]) => [id, new Map(totals)]));
    const move = (id: string, itemId: string, quantity: number) => {
      const totals = expected.get(id)!;
      totals.set(itemId, (totals.get(itemId) ?? 0) + quantity);
    };
    for (const trade of after.history) {
      // No character of this storm is deleted: both sides are on record.
      if (trade.playerA === null || trade.playerB === null) throw new Error(`trade ${trade.id} lost a side`);
      for (const { itemId, quantity } of trade.gaveA) {
        move(trade.playerA, itemId, -quantity);
        move(trade.playerB, itemId, quantity);
      }
      for (const { itemId, quantity } of trade.gaveB) {
        move(trade.playerB, itemId, -quantity);
        move(trade.playerA, itemId, quantity);
      }
    }
    const nonZero = (totals: Totals) =>
      [...totals].filter(([, n]) => n !== 0).sort(([a], [b]) => a.localeCompare(b));
    for (const [id, totals] of after.totals)
      assert.deepEqual(nonZero(totals), nonZero(expected.get(id)!), id);
    const sum = (all: Map<string, Totals>) => {
      const grand: Totals = new Map();
      for (const totals of all.values())
        for (const [item, n] of totals) grand.set(item, (grand.get(item) ?? 0) + n);
      return nonZero(grand);
    };
    assert.deepEqual(sum(after.totals), sum(before), "no item created or destroyed overall");
  }

  it("conserves every item, and the history explains every inventory", async () => {
    const bots = await startBots(1);
    const before = (await inspect(bots.map((bot) => bot.id))).totals;
    const storming = storm(bots);
    await stormFor(bots, STORM_MS, 5);
    for (const bot of bots) bot.stop();
    await storming;
    await Promise.all(bots.map((bot) => bot.quit()));
    await server!.stop();

    const after = await inspect(bots.map((bot) => bot.id));
    const seen = bots.flatMap((bot) => bot.completed);
    assert.ok(after.history.length > 5, `trades completed: ${after.history.length}`);
    for (const tradeId of seen)
      assert.ok(
        after.history.some((t) => t.id === tradeId),
        `${tradeId} is stored`,
      );
    assertHistoryExplains(before, after);
  });

  it("keeps the same invariants when the server is killed with SIGKILL in the middle of the storm", async () => {
    const bots = await startBots(2);
    const before = (await inspect(bots.map((bot) => bot.id))).totals;
    const storming = storm(bots);
    await stormFor(bots, STORM_MS / 2, 0);
    for (const bot of bots) bot.expectOutage();
    await server!.stop("SIGKILL");
    for (const bot of bots) bot.stop();
    await storming;
    const seen = bots.flatMap((bot) => bot.completed);

    server = await startServerProcess(PORT, env());
    const after = await inspect(bots.map((bot) => bot.id));
    assert.ok(after.history.length > 0, "some trades completed before the kill");
    for (const tradeId of seen)
      assert.ok(
        after.history.some((t) => t.id === tradeId),
        `${tradeId} is stored`,
      );
    assertHistoryExplains(before, after);
  });
});
