import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../src/config/config.js";
import { asTrader, startTrade } from "./rooms/trade-helpers.js";
import { waitFor } from "./rooms/world-helpers.js";
import { joinAsNewPlayer, leave } from "./support/players.js";
import { PROCESS_PORTS, startServerProcess } from "./support/processes.js";
import { type LogLine, recordingLogger } from "./support/recording-logger.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { connectNewPlayer } from "./support/ws-client.js";

const INFO = 30;
const DEBUG = 20;

describe("the server's log", function () {
  this.timeout(120000);

  describe("what it says", () => {
    let server: TestServer;
    const { logger, lines } = recordingLogger("debug");
    const said = (pattern: RegExp, level = INFO) =>
      lines.find((line) => line.level === level && pattern.test(line.msg));
    const waitToSay = (pattern: RegExp, level = INFO) =>
      waitFor(() => said(pattern, level) !== undefined, `a log line ${pattern}`, 20000);

    before(async () => {
      server = await startTestServer({ WORLD_TICK_MS: "100", AGENTS: "Logbot" }, { logger });
    });
    after(() => server?.stop());

    it("says when the world opens, and when an agent starts and joins", async () => {
      assert.ok(said(/^world 1 opened in this process/), "world opened");
      await waitToSay(/^agent Logbot started$/);
      await waitToSay(/^Logbot joined the world \(agent\)$/);
    });

    it("says who joins and leaves, and through which kind of client", async () => {
      const sdk = await joinAsNewPlayer(server);
      const ws = await connectNewPlayer(server);
      const joined = (name: string, kind: string) =>
        new RegExp(`^${name} joined the world \\(${kind.replace("/", "\\/")}\\)$`);
      await waitToSay(joined(sdk.sync.name, "SDK"));
      await waitToSay(joined(ws.sync.name, "/ws"));
      const line = said(joined(ws.sync.name, "/ws")) as LogLine;
      assert.equal(line.characterId, ws.id);
      assert.equal(line.client, "/ws");

      await leave(sdk.room);
      await ws.client.close();
      await waitToSay(new RegExp(`^${sdk.sync.name} left the world \\(SDK\\)$`));
      await waitToSay(new RegExp(`^${ws.sync.name} left the world \\(\\/ws\\)$`));
    });

    it("says when a trade fails, and why", async () => {
      const [alice, bob] = [asTrader(await joinAsNewPlayer(server)), asTrader(await joinAsNewPlayer(server))];
      try {
        const tradeId = await startTrade(alice, bob);
        alice.trade!.send("tradeCancel", { tradeId });
        await waitToSay(/^trade failed \(cancelled\): /);
        const line = said(/^trade failed/) as LogLine;
        assert.equal(line.tradeId, tradeId);
        assert.deepEqual([...(line.players as string[])].sort(), [alice.sync.name, bob.sync.name].sort());
      } finally {
        await Promise.all([alice, bob].flatMap((trader) => [leave(trader.trade), leave(trader.room)]));
      }
    });

    it("logs each HTTP request at debug", async () => {
      await fetch(`${server.baseUrl}/health?probe=1`);
      await waitToSay(/^GET \/health 200 [\d.]+ ms$/, DEBUG);
      assert.equal(said(/^GET \/health 200/, DEBUG)?.path, "/health", "the path, without its query");
      // Answered within the router mounted at /api: logged under the path asked for, prefix and all.
      await fetch(`${server.baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
      await waitToSay(/^POST \/api\/v1\/auth\/anonymous 201 [\d.]+ ms$/, DEBUG);
    });

    it("says when the world closes", async () => {
      await server.stop();
      await waitToSay(/^world 1 closed in this process/);
      await waitToSay(/^agent Logbot stopped$/);
    });
  });

  describe("its format", () => {
    it("is pretty in development, JSON otherwise, as LOG_FORMAT says", () => {
      assert.equal(loadConfig({ NODE_ENV: "development" }).logFormat, "pretty");
      assert.equal(loadConfig({}).logFormat, "pretty");
      assert.equal(loadConfig({ NODE_ENV: "test" }).logFormat, "json");
      assert.equal(loadConfig({ NODE_ENV: "development", LOG_FORMAT: "json" }).logFormat, "json");
      assert.throws(() => loadConfig({ LOG_FORMAT: "xml" }), /LOG_FORMAT/);
    });

    it("writes lines for people from a development server", async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-logs-"));
      const server = await startServerProcess(
        PROCESS_PORTS.logs,
        {
          DATA_DIR: dataDir,
          PGLITE_STORAGE: "memory",
          LOG_FORMAT: "",
        },
        // The embedded database may take most of a minute to create on a busy machine.
        90000,
      );
      try {
        await waitFor(() => /listening on/.test(server.output()), "the listening line");
        const output = server.output();
        assert.match(
          output,
          /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on http:\/\/localhost:\d+ \(development\)$/m,
        );
        assert.match(output, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: world 1 opened in this process/m);
        assert.doesNotMatch(output, /^\{"level"/m, "no JSON line");
        assert.doesNotMatch(output, /\.env file not found/, "no notice about a .env file it does not need");
      } finally {
        await server.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});
