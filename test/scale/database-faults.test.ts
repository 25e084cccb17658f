import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { freshDatabaseBehindProxy, postgresUrl } from "../support/databases.js";
import { sleep } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, startServerProcess } from "../support/processes.js";
import type { TcpProxy } from "../support/tcp.js";
import { type Frame, WsClient } from "../support/ws-client.js";

const JWT_SECRET = "database-faults-test-secret";
/** Short enough for a test to see a silent connection given up on; the defaults are 5 s and 10 s. */
const QUERY_TIMEOUT_MS = 3000;

/** The JSON log lines of a process's output. */
const logLines = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string; err?: { message: string } });

describe("PostgreSQL connections that go silent under the world (a TCP proxy in front of the database)", function () {
  this.timeout(120_000);
  let proxy: TcpProxy;
  let dropDatabase: () => Promise<void>;
  let server: ServerProcess | undefined;
  let dataDir: string;
  const clients: WsClient[] = [];

  before(async function () {
    if (!postgresUrl) this.skip();
    const behind = await freshDatabaseBehindProxy(postgresUrl);
    ({ proxy, drop: dropDatabase } = behind);
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-db-faults-"));
    server = await startServerProcess(PROCESS_PORTS.databaseFaults, {
      DATABASE_URL: behind.url,
      DATA_DIR: dataDir,
      JWT_SECRET,
      WORLD_TICK_MS: "100",
      DATABASE_STATEMENT_TIMEOUT_MS: "1000",
      DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      LOG_LEVEL: "info",
    });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await server?.stop("SIGKILL");
    await proxy?.close();
    await dropDatabase?.().catch(() => {});
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A new player, connecting again after each `unavailable` refusal (as docs/protocol.md tells clients to). */
  const connectPlayer = async () => {
    const { token } = await issueAnonymousToken(new TextEncoder().encode(JWT_SECRET));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = await WsClient.connect(`ws://127.0.0.1:${server!.port}/ws`, { header: token });
      clients.push(client);
      const first = await client.first();
      if (first.event === "player:sync") {
        const sync = first.data as { id: string; position: { x: number; z: number } };
        return { client, id: sync.id, home: sync.position };
      }
      assert.deepEqual(
        [first.event, first.data.code, (await client.closed).code],
        ["error", "unavailable", 4503],
      );
      assert.ok(Date.now() < deadline, "a player joins within 30 s");
      await sleep(500);
    }
  };
  const standsAt = (id: string, x: number, z: number) => (data: Frame["data"]) =>
    [...data.added, ...data.updated].some(
      (entity: { id: string; position: { x: number; z: number } }) =>
        entity.id === id && entity.position.x === x && entity.position.z === z,
    );
  /** Asks the player to walk to the tile until a world:update shows it there; how long that took. */
  const walk = async (player: Awaited<ReturnType<typeof connectPlayer>>, z: number, withinMs: number) => {
    const started = Date.now();
    const { x } = player.home;
    const arrived = player.client.next("world:update", standsAt(player.id, x, z), withinMs).then(() => true);
    const tries = (async () => {
      // Refused while the world waits for its database (`unavailable`): asked again until it moves.
      while (Date.now() - started < withinMs) {
        player.client.send("player:move", { x, z });
        if (await Promise.race([arrived, sleep(1000).then(() => false)])) return;
      }
    })();
    await arrived;
    await tries;
    return Date.now() - started;
  };
  const health = async () => {
    const response = await fetch(`${server!.baseUrl}/health`);
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it("moves players again within 30 s of a black-hole of the world's connections, says why it stalled and reports it on /health", async () => {
    const player = await connectPlayer();
    const ok = await health();
    assert.equal(ok.status, 200);
    assert.deepEqual([ok.body.database, ok.body.world], ["ok", { database: "ok" }]);
    await walk(player, player.home.z + 3, 10_000);
    await sleep(300);
    const silenced = proxy.blackHole();
    assert.ok(silenced > 0, "the world's connections go silent");
    const healthSeen: { status: number; body: Record<string, any> }[] = [];
    let polling = true;
    const polls = (async () => {
      while (polling) {
        healthSeen.push(await health());
        await sleep(250);
      }
    })();
    const tookMs = await walk(player, player.home.z, 30_000);
    polling = false;
    await polls;
    assert.ok(tookMs < 30_000, `moved again after ${tookMs} ms`);
    const logged = logLines(server!.output());
    const stalled = logged.find((line) => line.msg.startsWith("saving the world failed"));
    assert.match(stalled?.err?.message ?? "", /did not answer within 3000 ms/, server!.output().slice(-3000));
    assert.ok(logged.some((line) => line.msg === "saving the world works again"));
    assert.ok(
      healthSeen.some(({ status, body }) => status === 503 && body.world?.database === "waiting"),
      `health while the world waited: ${JSON.stringify(healthSeen.map(({ status, body }) => [status, body.world]))}`,
    );
    // The REST pool's silent connections are found out one query at a time (each within the timeout).
    const deadline = Date.now() + 30_000;
    let after = await health();
    while (after.status !== 200 && Date.now() < deadline) after = await health();
    assert.deepEqual([after.status, after.body.world], [200, { database: "ok" }]);
  });

  it("finishes SIGTERM within 10 s while the world's write hangs on a silent connection", async () => {
    const player = await connectPlayer();
    // A long walk: the world writes the walker's position every few ticks, and one of those writes hangs.
    player.client.send("player:move", { x: player.home.x, z: player.home.z + 8 });
    await sleep(300);
    proxy.blackHole();
    await sleep(500);
    const started = Date.now();
    const code = await server!.stop("SIGTERM");
    const tookMs = Date.now() - started;
    assert.equal(code, 0, server!.output().slice(-3000));
    assert.ok(tookMs < 10_000, `SIGTERM took ${tookMs} ms`);
    assert.match(server!.output(), /shutdown complete/);
  });
});

describe("a shutdown while PostgreSQL stalls (every connection, new ones too, holds what it is sent)", function () {
  this.timeout(60_000);

  it("closes its players with 4001 within seconds and exits within 10 s", async function () {
    if (!postgresUrl) this.skip();
    const { url, proxy, drop } = await freshDatabaseBehindProxy(postgresUrl);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-db-stall-"));
    const server = await startServerProcess(PROCESS_PORTS.databaseStall, {
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      JWT_SECRET,
      WORLD_TICK_MS: "100",
      LOG_LEVEL: "info",
    });
    try {
      const players = await Promise.all(
        [1, 2].map(async () => {
          const { token } = await issueAnonymousToken(new TextEncoder().encode(JWT_SECRET));
          const client = await WsClient.connect(`ws://127.0.0.1:${server.port}/ws`, { header: token });
          assert.equal((await client.first()).event, "player:sync");
          return client;
        }),
      );
      proxy.stall();
      const started = Date.now();
      const exited = server.stop("SIGTERM");
      const closes = await Promise.all(players.map((player) => player.closed));
      const closedAfterMs = Date.now() - started;
      const code = await exited;
      const exitedAfterMs = Date.now() - started;
      // A player is told the server is going after a second at most, not when the process gives up.
      assert.deepEqual(
        closes.map((close) => close.code),
        [4001, 4001],
      );
      assert.ok(closedAfterMs < 3000, `closed after ${closedAfterMs} ms`);
      assert.ok(exitedAfterMs < 10_000, `exited after ${exitedAfterMs} ms`);
      assert.equal(code, 0, server.output().slice(-3000));
    } finally {
      await server.stop("SIGKILL");
      proxy.resume();
      await proxy.close();
      await drop().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
