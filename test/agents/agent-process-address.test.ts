// AGENTS_PER_ADDRESS with the agent process (`npm run agents`): creations forwarded by the game server are
// counted there by the client address the game server vouches for, and no caller can vouch for one.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GENEROUS_LIMITS, request } from "../api/support.js";
import { PROCESS_PORTS, type ServerProcess, startAgentProcess } from "../support/processes.js";
import { startTestServer, type TestServer } from "../support/server.js";

const JWT_SECRET = "the secret the game server and the agent process share";
/** The agent process's REST limit in this suite (the game server's is generous). */
const DIRECT_REST_LIMIT = 20;

describe("AGENTS_PER_ADDRESS through the agent process", function () {
  this.timeout(120000);
  const port = PROCESS_PORTS.agentFramework;
  let server: TestServer;
  let framework: ServerProcess | undefined;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-agent-process-address-"));
    // The game server sits behind one proxy (TRUST_PROXY=1): each client's own address is known to it.
    server = await startTestServer({
      ...GENEROUS_LIMITS,
      TRUST_PROXY: "1",
      WORLD_TICK_MS: "50",
      JWT_SECRET,
      AGENT_FRAMEWORK_URL: `http://127.0.0.1:${port}`,
    });
    framework = await startAgentProcess(port, server.baseUrl, JWT_SECRET, dataDir, {
      AGENTS_PER_ADDRESS: "1",
      RATE_LIMIT_REST_PER_MIN: String(DIRECT_REST_LIMIT),
    });
  });
  after(async () => {
    await framework?.stop();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("counts two owners at two addresses apart (AGENTS_PER_ADDRESS=1), and takes no caller's word for one", async () => {
    const statuses: number[] = [];
    for (const [index, address] of ["203.0.113.7", "198.51.100.9"].entries()) {
      const headers = { "x-forwarded-for": address };
      const signIn = await request(server, "/api/v1/auth/anonymous", { method: "POST", headers });
      assert.equal(signIn.status, 201);
      const { token } = await signIn.json();
      const created = await request(server, "/api/agents", {
        token,
        headers,
        body: { name: `Far ${index} Owner` },
      });
      statuses.push(created.status);
      if (created.status !== 201) console.log(`      ${address}: ${await created.text()}`);
    }
    assert.deepEqual(statuses, [201, 201], "the second address was counted as the first's");

    // A caller of the agent process itself claiming the first address, without the game server's proof,
    // is counted as what it is (this machine, which has started none).
    const signIn = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
    const { token } = await signIn.json();
    const direct = await fetch(`http://127.0.0.1:${port}/api/agents`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "x-tileworld-client-address": "203.0.113.7",
        "x-tileworld-client-proof": "made-up",
      },
      body: JSON.stringify({ name: "Near Owner" }),
    });
    assert.equal(direct.status, 201, await direct.text());
  });

  it("holds a client calling it directly to the REST limit, and does not count again what the game server forwards", async () => {
    const { token } = await (await request(server, "/api/v1/auth/anonymous", { method: "POST" })).json();
    const direct: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < DIRECT_REST_LIMIT + 5; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/api/agents`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await response.arrayBuffer();
      direct.push(response.status);
      retryAfter ??= response.headers.get("retry-after");
    }
    // (The first test's direct creation counted one already.)
    assert.deepEqual(direct.slice(0, DIRECT_REST_LIMIT - 1), Array(DIRECT_REST_LIMIT - 1).fill(200));
    assert.deepEqual(direct.slice(DIRECT_REST_LIMIT), Array(5).fill(429), "past the limit, answered 429");
    assert.ok(Number(retryAfter) > 0, "with Retry-After");
    // The same caller through the game server: counted there (generously), not here.
    for (let i = 0; i < DIRECT_REST_LIMIT + 5; i++) {
      const response = await request(server, "/api/agents", { token });
      assert.equal(response.status, 200, await response.text());
    }
  });
});

describe("the agent process's questions to the game server, counted as its callers'", function () {
  this.timeout(120000);
  const port = PROCESS_PORTS.agentFramework;
  /** The game server's REST limit in this suite: one client can spend it. */
  const GAME_REST_LIMIT = 30;
  let server: TestServer;
  let framework: ServerProcess | undefined;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-agent-process-budget-"));
    server = await startTestServer({
      TRUST_PROXY: "1",
      RATE_LIMIT_REST_PER_MIN: String(GAME_REST_LIMIT),
      WORLD_TICK_MS: "50",
      JWT_SECRET,
      AGENT_FRAMEWORK_URL: `http://127.0.0.1:${port}`,
    });
    framework = await startAgentProcess(port, server.baseUrl, JWT_SECRET, dataDir, {
      RATE_LIMIT_REST_PER_MIN: "10000",
    });
  });
  after(async () => {
    await framework?.stop();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("lets no direct caller spend, with tokens it has not shown before, the budget of every other user", async () => {
    const headers = { "x-forwarded-for": "203.0.113.50" };
    const signIn = await request(server, "/api/v1/auth/anonymous", { method: "POST", headers });
    const { token } = await signIn.json();
    // Each unseen token is asked of the game server: past the limit, the caller's own questions are refused.
    const direct: number[] = [];
    for (let i = 0; i < GAME_REST_LIMIT + 5; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/api/agents`, {
        headers: { authorization: `Bearer unseen.${i}.token` },
      });
      await response.arrayBuffer();
      direct.push(response.status);
    }
    assert.equal(direct.at(-1), 429, `the caller's own budget spent: ${direct.join(", ")}`);
    // Another user, at its own address, through the game server as a dashboard calls: answered.
    const other = await request(server, "/api/agents", { token, headers });
    assert.equal(other.status, 200, await other.text());
  });
});
