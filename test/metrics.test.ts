import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import express from "express";
import { errorHandler } from "../src/api/errors.js";
import { metricsRouter } from "../src/api/metrics.js";
import { createRateLimits } from "../src/limits/rate-limits.js";
import { createLogger } from "../src/telemetry/logger.js";
import { GENEROUS_LIMITS } from "./api/support.js";
import { asTrader, startTrade, type Trader } from "./rooms/trade-helpers.js";
import { joinAsNewPlayer, leave, sleep, waitForAsync } from "./support/players.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** One scrape: each sample's value by its name and labels as written (`name{label="value"}`). */
type Scrape = Map<string, number>;

async function scrape(baseUrl: string): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
  return parseMetrics(await response.text());
}

function parseMetrics(text: string): Scrape {
  const samples: Scrape = new Map();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

const value = (samples: Scrape, sample: string) => samples.get(sample) ?? 0;

describe("GET /metrics", function () {
  this.timeout(60000);
  let server: TestServer;
  const traders: Trader[] = [];
  const join = async () => {
    const trader = asTrader(await joinAsNewPlayer(server));
    traders.push(trader);
    return trader;
  };

  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100", ...GENEROUS_LIMITS });
  });
  after(async () => {
    await Promise.all(traders.flatMap((trader) => [leave(trader.trade), leave(trader.room)]));
    await server?.stop();
  });

  it("names every metric tileworld_ and has the process's, the event loop's and the GC's", async () => {
    const response = await fetch(`${server.baseUrl}/metrics`);
    const text = await response.text();
    const names = [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!);
    assert.ok(names.length > 20, `only ${names.length} metrics`);
    assert.deepEqual(
      names.filter((name) => !name.startsWith("tileworld_")),
      [],
    );
    for (const name of [
      "tileworld_players_online",
      "tileworld_tick_phase_duration_seconds",
      "tileworld_nodejs_eventloop_lag_seconds",
      "tileworld_nodejs_gc_duration_seconds",
      "tileworld_process_resident_memory_bytes",
      "tileworld_database_write_duration_seconds",
      "tileworld_messages_in_total",
      "tileworld_trades_completed_total",
    ])
      assert.ok(names.includes(name), `${name} is missing`);
    assert.equal(response.headers.get("cache-control"), "no-store");
  });

  it("moves as players join, move, are refused, trade and leave", async () => {
    const before = await scrape(server.baseUrl);
    const alice = await join();
    const bob = await join();

    alice.room.send("player:move", { x: alice.sync.position.x + 2, z: alice.sync.position.z });
    alice.room.send("no-such-event", {});
    await alice.inbox.next("error", (error) => error.code === "unknown_event");

    // A trade cancelled, then one that swaps 5 coins for nothing.
    const cancelled = await startTrade(alice, bob);
    alice.trade!.send("tradeCancel", { tradeId: cancelled });
    await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true);
    await Promise.all([leave(alice.trade), leave(bob.trade)]);
    const tradeId = await startTrade(alice, bob);
    const coins = alice.sync.inventory.find((entry) => entry.itemId === "coins")!;
    alice.trade!.send("tradeAddItem", { tradeId, inventorySlot: coins.slot, quantity: 5 });
    await bob.tradeInbox.next("tradeUpdated", (update) => update.theirOffer.length === 1);
    for (let round = 0; round < 2; round++) {
      alice.trade!.send("tradeAccept", { tradeId });
      bob.trade!.send("tradeAccept", { tradeId });
      if (round === 0) await alice.tradeInbox.next("tradeConfirmScreen");
    }
    await bob.tradeInbox.next("tradeCompleted", () => true, 5000, true);

    const during = await scrape(server.baseUrl);
    const grew = (sample: string, by = 1) =>
      assert.ok(
        value(during, sample) - value(before, sample) >= by,
        `${sample}: ${value(before, sample)} then ${value(during, sample)}`,
      );
    assert.equal(value(during, "tileworld_players_online"), 2);
    grew('tileworld_messages_in_total{event="player:move"}');
    grew('tileworld_messages_in_total{event="other"}');
    grew('tileworld_messages_in_total{event="tradeAccept"}', 4);
    grew('tileworld_refusals_total{reason="unknown_event"}');
    grew('tileworld_messages_out_total{event="player:sync"}', 2);
    grew('tileworld_messages_out_total{event="tradeCompleted"}', 2);
    grew("tileworld_trades_completed_total");
    grew('tileworld_trades_failed_total{reason="cancelled"}');
    grew('tileworld_trade_commit_duration_seconds_count{outcome="ok"}');

    // What the ticks record may come after the scrape above: all of it can take less than a tick, and a
    // walk is written when it ends.
    for (const sample of [
      'tileworld_database_write_duration_seconds_count{outcome="ok"}',
      'tileworld_tick_phase_duration_seconds_count{phase="commit"}',
      'tileworld_tick_phase_duration_seconds_count{phase="players"}',
      "tileworld_tick_duration_seconds_count",
    ])
      await waitForAsync(
        async () => value(await scrape(server.baseUrl), sample) > value(before, sample),
        `${sample} to grow`,
      );

    await Promise.all(traders.splice(0).flatMap((trader) => [leave(trader.trade), leave(trader.room)]));
    await waitForAsync(
      async () => value(await scrape(server.baseUrl), "tileworld_players_online") === 0,
      "players_online back to 0",
    );
  });

  it("counts each trade's end once, though its room stays open a while after it", async () => {
    const alice = await join();
    const bob = await join();
    const before = await scrape(server.baseUrl);
    const cancelled = await startTrade(alice, bob);
    alice.trade!.send("tradeCancel", { tradeId: cancelled });
    await bob.tradeInbox.next("tradeCancelled", () => true, 5000, true);
    await Promise.all([leave(alice.trade), leave(bob.trade)]);
    const tradeId = await startTrade(alice, bob);
    for (let round = 0; round < 2; round++) {
      alice.trade!.send("tradeAccept", { tradeId });
      bob.trade!.send("tradeAccept", { tradeId });
      if (round === 0) await alice.tradeInbox.next("tradeConfirmScreen");
    }
    await bob.tradeInbox.next("tradeCompleted", () => true, 5000, true);
    // The rooms linger 10 s once their trades end, and check their trades for expiry every second.
    await sleep(2500);
    const after = await scrape(server.baseUrl);
    const grown = (sample: string) => value(after, sample) - value(before, sample);
    assert.equal(grown("tileworld_trades_completed_total"), 1);
    assert.equal(grown('tileworld_trades_failed_total{reason="cancelled"}'), 1);
    await Promise.all(traders.splice(0).flatMap((trader) => [leave(trader.trade), leave(trader.room)]));
  });
});

describe("GET /metrics in production", () => {
  const logger = createLogger("silent", "json");
  const serve = async (METRICS_TOKEN: string | undefined) => {
    const limits = createRateLimits(
      { RATE_LIMIT_REST_PER_MIN: 100, RATE_LIMIT_AUTH_PER_MIN: AUTH_LIMIT, RATE_LIMIT_WINDOW_MS: 60_000 },
      logger,
    );
    const app = express().use(
      metricsRouter({ production: true, METRICS_TOKEN }, limits.authAttempts),
      errorHandler(logger),
    );
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/metrics`,
      close: async () => {
        server.close();
        await limits.close();
      },
    };
  };
  /** Authentication attempts an address may make a minute, in these tests. */
  const AUTH_LIMIT = 3;

  it("is not there without METRICS_TOKEN", async () => {
    const { url, close } = await serve(undefined);
    try {
      const response = await fetch(url, { headers: { authorization: "Bearer " } });
      assert.equal(response.status, 404);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, "not_found");
    } finally {
      await close();
    }
  });

  it("answers only the bearer of METRICS_TOKEN", async () => {
    const { url, close } = await serve("s3cret-token");
    try {
      const without = await fetch(url);
      assert.equal(without.status, 401);
      assert.equal(without.headers.get("www-authenticate"), "Bearer");
      const wrong = await fetch(url, { headers: { authorization: "Bearer s3cret-tokem" } });
      assert.equal(wrong.status, 401);
      const right = await fetch(url, { headers: { authorization: "Bearer s3cret-token" } });
      assert.equal(right.status, 200);
      assert.match(await right.text(), /^# HELP tileworld_/m);
      // The scheme's name is case-insensitive, as for the API's tokens.
      const lowerCase = await fetch(url, { headers: { authorization: "bearer s3cret-token" } });
      assert.equal(lowerCase.status, 200);
    } finally {
      await close();
    }
  });

  it("counts wrong tokens as authentication attempts: past the limit, the right one is refused too", async () => {
    const { url, close } = await serve("s3cret-token");
    try {
      const scrape = (token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });
      // The right one, however often, counts nothing.
      for (let i = 0; i < AUTH_LIMIT + 2; i++) assert.equal((await scrape("s3cret-token")).status, 200);
      for (let i = 0; i < AUTH_LIMIT; i++) assert.equal((await scrape(`guess-${i}`)).status, 401);
      const limited = await scrape("guess-last");
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) > 0);
      assert.equal((await scrape("s3cret-token")).status, 429, "the right one tells nothing past the limit");
    } finally {
      await close();
    }
  });
});
