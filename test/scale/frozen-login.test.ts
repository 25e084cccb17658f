import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { WebSocket } from "ws";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { sleep, waitForAsync } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, startServerProcess } from "../support/processes.js";
import { accepting, hasRedisServer, startRedis, stopRedis } from "../support/redis-server.js";
import { WsClient } from "../support/ws-client.js";

const PORTS = PROCESS_PORTS.frozenLogin;
/** The servers' bound on a login's wait in a stopped process, shortened so that the freeze can be short too. */
const MAX_STALL_MS = 1000;
/** How long the client of the stale login waits for its answer before it gives up. */
const PATIENCE_MS = 500;

(hasRedisServer && postgresUrl ? describe : describe.skip)(
  "a /ws login that reached a process while it was stopped (redis-server and TEST_DATABASE_URL)",
  function () {
    this.timeout(90_000);
    let redis: ChildProcess | undefined;
    let database: { url: string; drop(): Promise<void> } | undefined;
    const servers: ServerProcess[] = [];
    let dataDir: string;

    before(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-frozen-login-"));
      database = await freshDatabaseUrl(postgresUrl!);
      redis = startRedis(PORTS.redis);
      await accepting(PORTS.redis);
      const start = (port: number) =>
        startServerProcess(port, {
          DATA_DIR: dataDir,
          DATABASE_URL: database!.url,
          REDIS_URL: `redis://127.0.0.1:${PORTS.redis}`,
          PUBLIC_ADDRESS: `127.0.0.1:${port}`,
          JWT_SECRET: "frozen-login-test-secret",
          WORLD_TICK_MS: "100",
          WS_LOGIN_MAX_STALL_MS: process.env.FROZEN_LOGIN_MAX_STALL_MS ?? String(MAX_STALL_MS),
        });
      // The first opens the world; the second relays its /ws logins there.
      servers.push(await start(PORTS.world));
      servers.push(await start(PORTS.stopped));
    });
    after(async () => {
      servers[1]?.child.kill("SIGCONT");
      await Promise.all(servers.map((server) => server.stop()));
      if (redis) await stopRedis(redis);
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("is dropped once it resumes, long after its client gave up, and the player's live session plays on", async () => {
      const [world, stopped] = servers as [ServerProcess, ServerProcess];
      const signIn = await fetch(`${world.baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
      const { token } = (await signIn.json()) as { token: string };
      const live = await WsClient.connect(`ws://127.0.0.1:${PORTS.world}/ws`, { header: token });
      await live.next("player:sync");

      stopped.child.kill("SIGSTOP");
      const frozenAt = Date.now();
      // The player's login there: the kernel takes the connection and the upgrade request, nothing
      // answers, and the client gives up (it has its live session on the world's process meanwhile).
      const staleUrl = `ws://127.0.0.1:${PORTS.stopped}/ws`;
      const stale = new WebSocket(staleUrl, {
        headers: { Authorization: `Bearer ${token}` },
        handshakeTimeout: PATIENCE_MS,
      });
      await new Promise((resolve) => stale.once("error", resolve));
      await sleep(2 * MAX_STALL_MS - (Date.now() - frozenAt));
      stopped.child.kill("SIGCONT");

      // Either the stale login is dropped, or, carried out (relayed to the world), it replaces the live
      // session (4409).
      await Promise.race([
        waitForAsync(
          async () => stopped.output().includes("/ws login dropped"),
          "the stale login dropped",
          10_000,
        ),
        live.closed.then(({ code }) => assert.fail(`the stale login closed the live session with ${code}`)),
      ]);
      live.send("player:chat", { message: "still here" });
      await live.next("chat:message", (data) => data.message === "still here", 5000);

      // A login that comes once the process has resumed (half a second: see LoopStalls) is carried out.
      // On a loaded machine the resumed process may still be catching up: its 503 says to try again.
      await sleep(1000);
      const next = await connectRetryingUnavailable(staleUrl, token);
      await next.next("player:sync", () => true, 10_000);
      assert.equal((await live.closed).code, 4409);
      await next.close();
    });
  },
);

/** A /ws login as a client makes it: a 503 (the server asks to be tried again) is retried for 10 s. */
async function connectRetryingUnavailable(url: string, token: string): Promise<WsClient> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await WsClient.connect(url, { header: token });
    } catch (error) {
      if (!/\b503\b/.test(String(error)) || Date.now() > deadline) throw error;
      await sleep(250);
    }
  }
}
