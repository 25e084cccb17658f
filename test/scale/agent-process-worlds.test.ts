import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import {
  PROCESS_PORTS,
  type ServerProcess,
  scaleOutEnv,
  startAgentProcess,
  startServerProcess,
} from "../support/processes.js";
import { type Frame, WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
const { servers, agents: AGENT_PORT } = PROCESS_PORTS.agentProcessWorlds;
/** A Redis database of its own, emptied first, so no other suite's keys are in the way. */
const REDIS_DB = 10;

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

scaleOut("the agent process beside two game server processes, one world each (WORLDS=2)", function () {
  this.timeout(90000);
  const secret = randomBytes(32).toString("hex");
  const agentProcessUrl = `http://127.0.0.1:${AGENT_PORT}`;
  let games: ServerProcess[] = [];
  let agentProcess: ServerProcess | undefined;
  let database: { url: string; drop(): Promise<void> };
  let redis: Redis;
  let dataDir: string;
  const clients: WsClient[] = [];

  before(async () => {
    const redisUrl = `${redisBase}/${REDIS_DB}`;
    redis = new Redis(redisUrl);
    await redis.flushdb();
    database = await freshDatabaseUrl(postgresUrl!);
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-agent-process-worlds-"));
    const env = (port: number) => ({
      ...scaleOutEnv(port, { redisUrl, databaseUrl: database.url, secret, dataDir: `${dataDir}/game` }),
      WORLDS: "2",
      AGENT_FRAMEWORK_URL: agentProcessUrl,
    });
    // One after the other: each opens the lowest world that runs nowhere.
    for (const port of servers) games.push(await startServerProcess(port, env(port)));
    // On the first process: world 2 runs on the second.
    agentProcess = await startAgentProcess(AGENT_PORT, games[0]!.baseUrl, secret, `${dataDir}/agents`, {
      WORLD_TICK_MS: "100",
      WORLDS: "2",
    });
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await agentProcess?.stop();
    await Promise.all(games.map((server) => server.stop()));
    games = [];
    await redis?.flushdb();
    redis?.disconnect();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function connect(server: ServerProcess, world: number): Promise<{ client: WsClient; token: string }> {
    const { token } = await issueAnonymousToken(new TextEncoder().encode(secret));
    const client = await WsClient.connect(`ws://127.0.0.1:${server.port}/ws?world=${world}`, {
      header: token,
    });
    clients.push(client);
    assert.equal((await client.first()).event, "player:sync");
    return { client, token };
  }

  const shows = (id: string) => (frame: Frame) =>
    frame.event === "world:update" && frame.data.added?.some((entity: any) => entity.id === id);

  it("plays an agent of world 2 in world 2, on the process that holds it, joined through the other", async () => {
    const watcher = await connect(games[1]!, 2);
    const made = await fetch(`${games[0]!.baseUrl}/api/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${watcher.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Faraway", world: 2 }),
    });
    assert.equal(made.status, 201, await made.clone().text());
    const agent: { agentId: string; characterId: string } = await made.json();
    // Shown to a player of world 2, on the second process: the agent process reached it there.
    await watcher.client.received(shows(agent.characterId), 30000);
    const listed = await (
      await fetch(`${games[1]!.baseUrl}/api/agents`, {
        headers: { authorization: `Bearer ${watcher.token}` },
      })
    ).json();
    const row = listed.agents.find((entry: any) => entry.agentId === agent.agentId);
    assert.deepEqual([row?.world, row?.online], [2, true], JSON.stringify(listed));
    assert.doesNotMatch(agentProcess!.output(), /could not join|left the world/);
  });
});
