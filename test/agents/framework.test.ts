import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { decodeJwt, SignJWT } from "jose";
import { ANONYMOUS_AUDIENCE, issueAnonymousToken, SERVER_ISSUER } from "../../src/auth/tokens.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "../api/support.js";
import { sleep, waitForAsync } from "../support/players.js";
import { PROCESS_PORTS, type ServerProcess, startAgentProcess } from "../support/processes.js";
import { startTestServer, type TestServer } from "../support/server.js";

const JWT_SECRET = "the secret the game server and the agent process share";

describe("the agent process (npm run agents) beside a game server", function () {
  this.timeout(120000);
  const port = PROCESS_PORTS.agentFramework;
  const agentProcess = { baseUrl: `http://127.0.0.1:${port}` };
  let server: TestServer;
  let framework: ServerProcess | undefined;
  let dataDir: string;
  let owner: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-agent-process-"));
    server = await startTestServer({
      ...GENEROUS_LIMITS,
      WORLD_TICK_MS: "50",
      JWT_SECRET,
      AGENT_FRAMEWORK_URL: agentProcess.baseUrl,
      WORLDS: "2",
    });
    owner = (await signInAnonymously(server)).token;
  });
  after(async () => {
    await framework?.stop();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers 503 through the game server while the agent process does not run", async () => {
    const body = await expectError(
      await request(server, "/api/agents", { token: owner }),
      503,
      "unavailable",
    );
    assert.doesNotMatch(
      body.message,
      /127\.0\.0\.1|http/,
      "the agent process's address is not the caller's to know",
    );
    // Only an authenticated caller is forwarded at all.
    await expectError(await request(server, "/api/agents"), 401, "unauthorized");
  });

  it("runs an agent created through the game server as a player there, readable at both addresses", async () => {
    framework = await startAgentProcess(port, server.baseUrl, JWT_SECRET, dataDir, {
      WORLDS: "2",
      LOG_LEVEL: "info",
    });
    const created = await request(server, "/api/agents", { body: { name: "Far Feller" }, token: owner });
    assert.equal(created.status, 201, await created.clone().text());
    const agent: { agentId: string; characterId: string; name: string } = await created.json();
    assert.equal(agent.name, "Far Feller");
    // The game server itself runs no agent: the one created plays from the other process, which says
    // who decides for its agents.
    assert.equal(server.runtime.agents.list().length, 0);
    assert.match(framework.output(), /agents decide by their rules/);

    const goal = await request(server, `/api/agents/${agent.agentId}/goal`, {
      body: { type: "woodcutting", target: 25 },
      token: owner,
    });
    assert.equal(goal.status, 200, await goal.clone().text());
    // The world knows the character as a player online, gaining XP.
    await waitForAsync(
      async () => {
        const skills = await (
          await request(server, `/api/characters/${agent.characterId}/skills`, { token: owner })
        ).json();
        return skills.skills.woodcutting.xp >= 25;
      },
      "the agent's woodcutting XP on the game server",
      60000,
    );
    const position = await (
      await request(server, `/api/characters/${agent.characterId}/position`, { token: owner })
    ).json();
    assert.equal(position.online, true);

    const throughServer = await (
      await request(server, `/api/agents/${agent.agentId}/state`, { token: owner })
    ).json();
    const direct = await (
      await request(agentProcess, `/api/agents/${agent.agentId}/state`, { token: owner })
    ).json();
    for (const state of [throughServer, direct]) {
      assert.equal(state.characterId, agent.characterId);
      assert.equal(state.online, true);
      assert.ok(state.skills.woodcutting.xp >= 25, "the state reads the XP gained");
    }
    // Its definition is in the agent process's own store.
    const stored = JSON.parse(readFileSync(path.join(dataDir, "agents.json"), "utf8"));
    assert.deepEqual(
      stored.map((row: { id: string; characterId: string }) => [row.id, row.characterId]),
      [[agent.agentId, agent.characterId]],
    );
  });

  it("plays an agent made for world 2 in world 2", async () => {
    const created = await request(server, "/api/agents", {
      body: { name: "Far Wader", world: 2 },
      token: owner,
    });
    assert.equal(created.status, 201, await created.clone().text());
    const agent: { agentId: string } = await created.json();
    const playersOnline = async () =>
      (
        (await (await request(server, "/api/v1/worlds", { token: owner })).json()).worlds as {
          playersOnline: number;
        }[]
      ).map((world) => world.playersOnline);
    await waitForAsync(async () => (await playersOnline())[1] === 1, "the agent in world 2");
    assert.deepEqual(await playersOnline(), [1, 1], "the first agent stays in world 1");
    const { agents } = await (await request(server, "/api/agents", { token: owner })).json();
    assert.equal(agents.find((row: { agentId: string }) => row.agentId === agent.agentId)?.world, 2);
    const stored = JSON.parse(readFileSync(path.join(dataDir, "agents.json"), "utf8"));
    assert.deepEqual(
      stored.map((row: { name: string; world: number }) => [row.name, row.world]),
      [
        ["Far Feller", 1],
        ["Far Wader", 2],
      ],
    );
  });

  it("deletes an agent with its character on the game server, so that its name can be used again", async () => {
    const created = await request(server, "/api/agents", { body: { name: "Short Stay" }, token: owner });
    assert.equal(created.status, 201, await created.clone().text());
    const agent: { agentId: string; characterId: string } = await created.json();
    const skills = `/api/characters/${agent.characterId}/skills`;
    assert.equal((await request(server, skills, { token: owner })).status, 200);

    const deleted = await request(server, `/api/agents/${agent.agentId}`, { method: "DELETE", token: owner });
    assert.equal(deleted.status, 204, await deleted.clone().text());
    await expectError(await request(server, skills, { token: owner }), 404, "not_found");
    const stored = JSON.parse(readFileSync(path.join(dataDir, "agents.json"), "utf8"));
    assert.ok(!stored.some((row: { id: string }) => row.id === agent.agentId), "its row is gone");
    // Its name is free: a new agent takes it, with a character of its own.
    const again = await request(server, "/api/agents", { body: { name: "Short Stay" }, token: owner });
    assert.equal(again.status, 201, await again.clone().text());
    assert.notEqual((await again.json()).characterId, agent.characterId);
  });

  it("refuses a token that has expired since it last checked it, directly and through the game server", async () => {
    const [agent] = (await (await request(server, "/api/agents", { token: owner })).json()).agents;
    // A token of the owner's identity that runs out in 2 s, signed as the server signs its own.
    const expiresAt = Math.floor(Date.now() / 1000) + 2;
    const shortLived = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(decodeJwt(owner).sub!)
      .setIssuer(SERVER_ISSUER)
      .setAudience(ANONYMOUS_AUDIENCE)
      .setExpirationTime(expiresAt)
      .sign(new TextEncoder().encode(JWT_SECRET));
    // Checked, and remembered a while, while it is valid.
    assert.equal((await request(agentProcess, "/api/agents", { token: shortLived })).status, 200);
    await sleep(expiresAt * 1000 - Date.now() + 500);
    const stop = `/api/agents/${agent.agentId}/goal/stop`;
    await expectError(
      await request(agentProcess, stop, { method: "POST", token: shortLived }),
      401,
      "unauthorized",
    );
    await expectError(
      await request(server, stop, { method: "POST", token: shortLived }),
      401,
      "unauthorized",
    );
    assert.equal(
      (await request(server, stop, { method: "POST", token: owner })).status,
      200,
      "the owner's own",
    );
    await request(server, `/api/agents/${agent.agentId}/goal/resume`, { method: "POST", token: owner });
  });

  it("checks callers as the game server does, with the game server's accounts", async () => {
    const [agent] = (await (await request(server, "/api/agents", { token: owner })).json()).agents;
    await expectError(await request(agentProcess, "/api/agents"), 401, "unauthorized");
    await expectError(
      await request(agentProcess, "/api/agents", { token: "not.a.token" }),
      401,
      "unauthorized",
    );
    // Another account reads the agent but may not control it, through either address.
    const stranger = (await signInAnonymously(server)).token;
    assert.equal(
      (await request(server, `/api/agents/${agent.agentId}/goal`, { token: stranger })).status,
      200,
    );
    for (const address of [server, agentProcess])
      await expectError(
        await request(address, `/api/agents/${agent.agentId}/goal/stop`, { method: "POST", token: stranger }),
        403,
        "forbidden",
      );
    // A bad body is refused by the agent process, and the refusal passed back as it was given.
    await expectError(
      await request(server, `/api/agents/${agent.agentId}/goal`, {
        body: { type: "juggling" },
        token: owner,
      }),
      400,
      "bad_request",
    );
  });

  it("takes an owner's words for its agent, and refuses them once an admin muted the owner, at both addresses", async () => {
    const [agent] = (await (await request(server, "/api/agents", { token: owner })).json()).agents;
    const message = (address: { baseUrl: string }, token: string) =>
      request(address, `/api/agents/${agent.agentId}/message`, { body: { text: "hello there" }, token });
    for (const address of [server, agentProcess]) assert.equal((await message(address, owner)).status, 202);

    const { accountId } = await (await request(server, "/api/v1/account", { token: owner })).json();
    await server.runtime.accounts.muteUntil(accountId, new Date(Date.now() + 60_000));
    // A new token of the same identity: the agent process remembers a checked token for 30 s.
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret, decodeJwt(owner).sub);
    const chat = (address: { baseUrl: string }, id = agent.agentId) =>
      request(address, `/api/agents/${id}/actions/chatMessage`, { body: { message: "hello there" }, token });
    for (const address of [server, agentProcess]) {
      for (const said of [await message(address, token), await chat(address)]) {
        const refused = await expectError(said, 403, "forbidden");
        assert.match(refused.message, /^an admin muted this account until /);
      }
      // An agent that does not exist is not found, muted or not.
      await expectError(await chat(address, "nobody"), 404, "not_found");
      const idle = `/api/agents/${agent.agentId}/actions/idle`;
      assert.equal((await request(address, idle, { method: "POST", token })).status, 200, "it still obeys");
    }
    await server.runtime.accounts.muteUntil(accountId, null);
  });
});

describe("the agent process's agents of owners gone for good", function () {
  this.timeout(60000);
  const ABSENCE_SECONDS = "2";
  const port = PROCESS_PORTS.agentFramework;
  const agentProcess = { baseUrl: `http://127.0.0.1:${port}` };
  let server: TestServer;
  let framework: ServerProcess | undefined;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-agent-process-"));
    server = await startTestServer({
      ...GENEROUS_LIMITS,
      JWT_SECRET,
      AGENT_FRAMEWORK_URL: agentProcess.baseUrl,
      AGENT_OWNER_ABSENCE_SECONDS: ABSENCE_SECONDS,
    });
    framework = await startAgentProcess(port, server.baseUrl, JWT_SECRET, dataDir, {
      // Its agents decide at the server's default pace.
      WORLD_TICK_MS: "",
      AGENT_OWNER_ABSENCE_SECONDS: ABSENCE_SECONDS,
    });
  });
  after(async () => {
    await framework?.stop();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("are removed, as the game server removes its own, while a present owner's stay", async () => {
    const [away, present] = [
      (await signInAnonymously(server)).token,
      (await signInAnonymously(server)).token,
    ];
    const create = async (token: string, name: string) => {
      const created = await request(server, "/api/agents", { body: { name }, token });
      assert.equal(created.status, 201, await created.clone().text());
      return (await created.json()) as { agentId: string; characterId: string };
    };
    const [aways, presents] = [await create(away, "Left Behind"), await create(present, "Looked After")];
    const [awaysAgent, presentsAgent] = [aways.agentId, presents.agentId];
    // The present owner keeps being seen by the game server, though all it does is look at its agents
    // there (as a dashboard does: the requests go on to the agent process); the other is not heard from
    // again.
    await waitForAsync(
      async () => {
        const { agents } = await (await request(server, "/api/agents", { token: present })).json();
        const ids = agents.map((agent: { agentId: string }) => agent.agentId);
        assert.ok(ids.includes(presentsAgent), "the present owner's agent stays");
        return !ids.includes(awaysAgent);
      },
      "the absent owner's agent removed by the agent process",
      30000,
    );
    const stored = JSON.parse(readFileSync(path.join(dataDir, "agents.json"), "utf8"));
    assert.deepEqual(
      stored.map((row: { id: string }) => row.id),
      [presentsAgent],
    );
    // Its character went with it, on the game server.
    const skills = (agent: { characterId: string }) =>
      request(server, `/api/characters/${agent.characterId}/skills`, { token: present });
    await expectError(await skills(aways), 404, "not_found");
    assert.equal((await skills(presents)).status, 200);
  });

  it("answers which owners are absent only to the agent process's own token", async () => {
    const { token } = await signInAnonymously(server);
    await expectError(
      await request(server, "/api/v1/agent-process/absent-owners", {
        body: { accountIds: [], seconds: 60 },
        token,
      }),
      401,
      "unauthorized",
    );
  });
});
