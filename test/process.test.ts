import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AccountRepository } from "../src/db/accounts.js";
import { openDatabase } from "../src/db/database.js";
import { PROCESS_PORTS, runToExit, type ServerProcess, startServerProcess } from "./support/processes.js";
import { WsClient } from "./support/ws-client.js";

const PORT = PROCESS_PORTS.process;

function startServer(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess(PORT, { DATA_DIR: dataDir, ...env });
}

describe("server process", function () {
  this.timeout(90000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-data-"));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("shuts down cleanly on SIGTERM and keeps its data across a restart", async () => {
    const first = await startServer(dataDir);
    first.child.kill("SIGTERM");
    assert.equal(await first.exited, 0, first.output());
    assert.match(first.output(), /shutdown complete/);
    assert.doesNotMatch(first.output(), /injected env/, "dotenv's plain-text notice is off");

    const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
    const created = await new AccountRepository(handle.db).findOrCreate("anon:restart-check", "anonymous");
    await handle.close();

    const second = await startServer(dataDir);
    second.child.kill("SIGINT");
    assert.equal(await second.exited, 0, second.output());

    const reopened = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
    const found = await new AccountRepository(reopened.db).get(created.id);
    await reopened.close();
    assert.equal(found?.subject, "anon:restart-check");
  });

  it("refuses a second server on the same DATA_DIR, which would undo what the first one writes", async () => {
    const first = await startServer(dataDir);
    try {
      const { code, stderr: output } = await runToExit({ PORT: "0", DATA_DIR: dataDir });
      assert.equal(code, 1, output);
      assert.match(output, new RegExp(`in use by another server \\(process ${first.child.pid}\\)`));
      assert.match(output, /another DATA_DIR/);
      assert.doesNotMatch(output, /^\s+at /m, "no stack trace");
      assert.equal((await fetch(`${first.baseUrl}/health`)).status, 200);
    } finally {
      await first.stop();
    }
    // The first one's claim ends with it.
    const again = await startServer(dataDir);
    assert.equal(await again.stop(), 0, again.output());
  });

  it("exits 0, promptly, on SIGTERM while a /ws client has stopped reading (a frozen tab, a dead network)", async () => {
    const server = await startServer(dataDir, { WORLD_TICK_MS: "100" });
    const player = async () => {
      const { token } = await (
        await fetch(`${server.baseUrl}/api/v1/auth/anonymous`, { method: "POST" })
      ).json();
      const client = await WsClient.connect(`ws://127.0.0.1:${PORT}/ws`, { header: token });
      assert.equal((await client.first()).event, "player:sync");
      return client;
    };
    const [frozen, other] = [await player(), await player()];
    try {
      // The frozen client reads nothing more: it never answers the close handshake.
      (frozen.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const began = Date.now();
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0, server.output());
      // Not held for `ws`'s 30 s close timeout by the frozen client (an exit past the server's own 9.5 s
      // deadline would be 1); the margin is for a machine so busy the test itself sees the exit late.
      assert.ok(Date.now() - began < 20_000, `took ${Date.now() - began} ms`);
      assert.match(server.output(), /shutdown complete/);
      assert.equal((await other.closed).code, 4001);
    } finally {
      frozen.socket.terminate();
    }
  });

  it("starts where the claim left behind names a process id another program has since taken", async function () {
    if (process.platform !== "linux") this.skip();
    const other = spawn("sleep", ["60"]);
    try {
      writeFileSync(`${dataDir}/pglite.lock`, String(other.pid));
      const server = await startServer(dataDir);
      assert.equal(await server.stop(), 0, server.output());
    } finally {
      other.kill();
    }
  });

  /** Each thread of a process, by id, with its nice value (Linux's /proc/<pid>/task/<tid>/stat, field 19). */
  function threadNiceness(pid: number): Map<number, number> {
    const niceness = new Map<number, number>();
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, "utf8");
      // The fields after the command name, which is in parentheses and may hold spaces: state is field 3.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      niceness.set(Number(thread), Number(fields[19 - 3]));
    }
    return niceness;
  }

  it("runs its helper threads behind the main thread, which runs the tick, and its writer thread beside it", async function () {
    if (process.platform !== "linux") this.skip();
    const server = await startServer(dataDir);
    try {
      const pid = server.child.pid!;
      // The writer thread starts with the world's first publish, a tick after the world opens (run from
      // source, its module loader starts a thread of its own, which it puts behind the tick).
      const besideMain = () =>
        [...threadNiceness(pid)].filter(([thread, nice]) => thread !== pid && nice === 0);
      for (let waited = 0; besideMain().length !== 1 && waited < 30_000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const niceness = threadNiceness(pid);
      assert.equal(niceness.get(pid), 0, "the main thread keeps its priority");
      const helpers = [...niceness].filter(([thread]) => thread !== pid);
      assert.ok(helpers.length >= 5, `V8's workers, libuv's pool and the writer: ${helpers.length} threads`);
      assert.equal(besideMain().length, 1, "the writer thread, alone, keeps the main thread's priority");
      assert.deepEqual(
        helpers.filter(([, nice]) => nice !== 19 && nice !== 0),
        [],
        "every other thread at the lowest priority",
      );
    } finally {
      await server.stop();
    }
  });

  /** The process's resident memory in MB (Linux's /proc/<pid>/status, VmRSS). */
  function residentMb(pid: number): number {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
  }

  it("gives back the memory the embedded database took to create itself", async function () {
    if (process.platform !== "linux") this.skip();
    const freshDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-fresh-"));
    // Resident memory once start-up is over: PGlite's instance that made the database is released then.
    const settled = async (server: ServerProcess) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const mb = residentMb(server.child.pid!);
      assert.equal(await server.stop(), 0, server.output());
      return mb;
    };
    try {
      const created = await settled(await startServer(freshDir));
      const reopened = await settled(await startServer(freshDir));
      // It held about 460 MB more than a restart when it kept that instance, about 130 MB more now.
      assert.ok(
        created < reopened + 250,
        `${created.toFixed(0)} MB after creating the database, ${reopened.toFixed(0)} MB after reopening it`,
      );
    } finally {
      rmSync(freshDir, { recursive: true, force: true });
    }
  });

  describe("the world's state across restarts", () => {
    const env = { WORLD_TICK_MS: "100", ADMIN_CODE: "restart-test" };
    const wsUrl = `ws://127.0.0.1:${PORT}/ws`;

    async function signIn(): Promise<string> {
      const response = await fetch(`http://127.0.0.1:${PORT}/api/v1/auth/anonymous`, { method: "POST" });
      return (await response.json()).token;
    }

    /** Joins, becomes admin, takes 7 logs and walks to the tile; resolves once it stands there. */
    async function playAndStop(token: string, tile: { x: number; z: number }): Promise<WsClient> {
      const client = await WsClient.connect(wsUrl, { query: token });
      await client.received((frame) => frame.event === "player:sync");
      client.send("player:chat", { message: "/admin restart-test" });
      await client.next("chat:message", (data) => data.fromPlayerId === "server");
      client.send("player:chat", { message: "/give logs 7" });
      await client.next("player:sync", (data) =>
        data.inventory.some((e: { itemId: string }) => e.itemId === "logs"),
      );
      client.send("player:move", tile);
      await client.next("world:update", (data) =>
        data.updated.some(
          (e: { kind: string; position: { x: number; z: number } }) =>
            e.kind === "player" && e.position.x === tile.x && e.position.z === tile.z,
        ),
      );
      return client;
    }

    /** A new server on the same data finds the player on `tile` with the 7 logs it was given. */
    async function expectRestored(token: string, tile: { x: number; z: number }) {
      const second = await startServer(dataDir, env);
      try {
        const client = await WsClient.connect(wsUrl, { query: token });
        const sync = (await client.received((frame) => frame.event === "player:sync")).data;
        client.socket.close(1000);
        assert.deepEqual(sync.position, tile);
        assert.equal(sync.inventory.filter((e: { itemId: string }) => e.itemId === "logs").length, 7);
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }
    }

    it("keeps what a player did across a graceful restart", async () => {
      const first = await startServer(dataDir, env);
      const token = await signIn();
      await playAndStop(token, { x: 34, z: 35 });
      first.child.kill("SIGTERM");
      assert.equal(await first.exited, 0, first.output());

      await expectRestored(token, { x: 34, z: 35 });
    });

    it("keeps a dropped item on the ground across SIGKILL, to be picked up after the restart", async () => {
      const first = await startServer(dataDir, env);
      const token = await signIn();
      let coins: { slot: number; quantity: number };
      let dropped: { id: string; position: { x: number; z: number } };
      try {
        const dropper = await WsClient.connect(wsUrl, { query: token });
        const sync = (await dropper.received((frame) => frame.event === "player:sync")).data;
        coins = sync.inventory.find((e: { itemId: string }) => e.itemId === "coins");
        dropper.send("player:action", { action: "drop", inventorySlot: coins.slot });
        const update = await dropper.next("world:update", (data) =>
          data.added.some((e: { type: string }) => e.type === "coins"),
        );
        dropped = update.data.added.find((e: { type: string }) => e.type === "coins");
        // One more tick for the tick that dropped the coins to be written.
        await new Promise((resolve) => setTimeout(resolve, 150));
      } finally {
        first.child.kill("SIGKILL");
        await first.exited;
      }

      const second = await startServer(dataDir, env);
      try {
        const client = await WsClient.connect(wsUrl, { query: token });
        const restored = (await client.received((frame) => frame.event === "player:sync")).data;
        assert.equal(restored.coins, 0, "the coins left the inventory");
        const view = await client.received(
          (frame) =>
            frame.event === "world:update" &&
            frame.data.added.some((e: { id: string }) => e.id === dropped.id),
        );
        const onTheGround = view.data.added.find((e: { id: string }) => e.id === dropped.id);
        assert.deepEqual(
          [onTheGround.type, onTheGround.quantity, onTheGround.position],
          ["coins", coins.quantity, dropped.position],
        );
        client.send("player:action", { action: "pickup", targetId: dropped.id });
        const pickedUp = await client.next("player:sync", (data) => data.coins === coins.quantity);
        assert.equal(pickedUp.data.coins, coins.quantity);
        client.socket.close(1000);
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }
    });

    it("loses at most the last tick when killed with SIGKILL", async () => {
      const first = await startServer(dataDir, env);
      const token = await signIn();
      await playAndStop(token, { x: 30, z: 36 });
      // One more tick for the tick that moved the player to be written.
      await new Promise((resolve) => setTimeout(resolve, 150));
      first.child.kill("SIGKILL");
      await first.exited;

      await expectRestored(token, { x: 30, z: 36 });
    });
  });
});
