import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { sleep, waitForAsync } from "../support/players.js";
import {
  PROCESS_PORTS,
  type ServerProcess,
  startAgentProcess,
  startServerProcess,
} from "../support/processes.js";

const { server: SERVER_PORT, agents: AGENT_PORT } = PROCESS_PORTS.agentProcessRestart;

const withPostgres = postgresUrl ? describe : describe.skip;

withPostgres("the agent process while its game server is killed and started again", function () {
  this.timeout(120000);
  const secret = randomBytes(32).toString("hex");
  const agentProcess = `http://127.0.0.1:${AGENT_PORT}`;
  let database: { url: string; drop(): Promise<void> };
  let dataDir: string;
  let game: ServerProcess | undefined;
  let agents: ServerProcess | undefined;

  const startGame = () =>
    startServerProcess(SERVER_PORT, {
      DATABASE_URL: database.url,
      JWT_SECRET: secret,
      DATA_DIR: `${dataDir}/game`,
      AGENT_FRAMEWORK_URL: agentProcess,
      WORLD_TICK_MS: "100",
      RATE_LIMIT_REST_PER_MIN: "10000",
    });

  before(async () => {
    database = await freshDatabaseUrl(postgresUrl!);
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-agent-process-restart-"));
    game = await startGame();
    agents = await startAgentProcess(AGENT_PORT, game.baseUrl, secret, `${dataDir}/agents`, {
      WORLD_TICK_MS: "100",
    });
  });
  after(async () => {
    await agents?.stop();
    await game?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("shows its agents out of the world meanwhile, and plays them again once it is back", async () => {
    const { token } = await issueAnonymousToken(new TextEncoder().encode(secret));
    const send = (url: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(url, {
        method: init.method ?? "GET",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    const ask = async (url: string, init: { method?: string; body?: unknown } = {}) => {
      const response = await send(url, init);
      assert.ok(response.ok, `${url}: ${response.status} ${await response.clone().text()}`);
      return response.json();
    };
    const agent = await ask(`${game!.baseUrl}/api/agents`, { method: "POST", body: { name: "Steady" } });
    await ask(`${game!.baseUrl}/api/agents/${agent.agentId}/goal`, {
      method: "POST",
      body: { type: "woodcutting", target: 1000 },
    });
    // Asked of the agent process itself, which answers from memory who the caller is while the game
    // server is away.
    const state = () => ask(`${agentProcess}/api/agents/${agent.agentId}/state`);
    const xp = async () => (await state()).skills.woodcutting.xp as number;
    await waitForAsync(async () => (await xp()) > 0, "the agent chopping", 60000);
    // The SDK brings back only a session older than 5 s (its reconnection's minUptime).
    await sleep(6000);
    await waitForAsync(async () => (await state()).currentAction !== null, "the agent at work");
    await game!.stop("SIGKILL");
    await waitForAsync(async () => (await state()).online === false, "the agent out of the world", 5000);
    assert.equal((await state()).currentAction, null, "no action is under way out of the world");
    // Its quick actions say what it can be told meanwhile, and those it cannot are refused, not accepted.
    const quick = `${agentProcess}/api/agents/${agent.agentId}/quick-actions`;
    const { actions } = await ask(quick);
    assert.deepEqual(
      actions
        .filter((action: { available: boolean }) => action.available)
        .map((action: { id: string }) => action.id),
      ["stop", "idle"],
    );
    const chop = await send(`${quick}/woodcutting`, { method: "POST" });
    assert.equal(chop.status, 409);
    assert.match((await chop.json()).error.message, /not in the world/);
    assert.equal((await send(`${quick}/stop`, { method: "POST" })).status, 202);
    assert.equal((await state()).goalsPaused, true, "a pause holds out of the world");
    await ask(`${agentProcess}/api/agents/${agent.agentId}/goal/resume`, { method: "POST" });
    await ask(`${agentProcess}/api/agents/${agent.agentId}/goal`, {
      method: "POST",
      body: { type: "woodcutting", target: 1000 },
    });

    game = await startGame();
    await waitForAsync(async () => (await state()).online === true, "the agent back in the world", 60000);
    const before = await xp();
    await waitForAsync(async () => (await xp()) > before, "the agent chopping again", 60000);
  });
});
