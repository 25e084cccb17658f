import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { issueAgentProcessToken, issueAgentToken } from "../../src/auth/tokens.js";
import type { AgentRepository } from "../../src/db/agents.js";
import type { World } from "../../src/game/world.js";
import { freshDatabaseUrl, postgresUrl } from "../support/databases.js";
import { joinAsNewPlayer, leave, sleep, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { interceptWorldWrites } from "../support/world-writes.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

const ADMIN_CODE = "agent-admin";

interface AgentSummary {
  agentId: string;
  characterId: string;
  name: string;
  online?: boolean;
}

describe("/api/agents: the server's autonomous agents", function () {
  this.timeout(60000);
  let server: TestServer;
  let owner: string;

  before(async () => {
    server = await startTestServer({
      ...GENEROUS_LIMITS,
      WORLD_TICK_MS: "50",
      ADMIN_CODE,
      AGENTS: "Warden",
      AGENTS_PER_ACCOUNT: "3",
    });
  });
  // Each test has an owner of its own: an account runs 3 agents at most.
  beforeEach(async () => {
    owner = (await signInAnonymously(server)).token;
  });
  after(() => server?.stop());

  const get = async (path: string, token = owner) => {
    const response = await request(server, path, { token });
    assert.equal(response.status, 200, `${path}: ${response.status}`);
    return response.json();
  };
  const post = (path: string, body: unknown = {}, token = owner) =>
    request(server, path, { method: "POST", body, token });
  const xp = async (characterId: string, skill: string): Promise<number> =>
    (await get(`/api/characters/${characterId}/skills`)).skills[skill].xp;
  const list = async (): Promise<AgentSummary[]> => (await get("/api/agents")).agents;
  const online = (agentId: string) => async () => (await list()).find((a) => a.agentId === agentId)?.online;

  async function newAgent(name: string, token = owner): Promise<AgentSummary> {
    const response = await post("/api/agents", { name }, token);
    assert.equal(response.status, 201, await response.clone().text());
    const agent: AgentSummary = await response.json();
    await waitForAsync(online(agent.agentId), `${name} is in the world`);
    return agent;
  }

  it("runs the agents the configuration names, owned by nobody, as players in the world", async () => {
    let warden: AgentSummary | undefined;
    await waitForAsync(async () => {
      warden = (await list()).find((agent) => agent.name === "Warden");
      return warden?.online === true;
    }, "Warden is in the world");
    const position = await get(`/api/characters/${warden!.characterId}/position`);
    assert.equal(position.online, true);
    assert.deepEqual(await get(`/api/agents/mapping/${warden!.agentId}`), {
      agentId: warden!.agentId,
      characterId: warden!.characterId,
      name: "Warden",
    });
  });

  it("starts an agent for its owner that works towards the goal it is given", async () => {
    const agent = await newAgent("Lumberjack");
    const set = await post(`/api/agents/${agent.agentId}/goal`, { type: "woodcutting", target: 25 });
    assert.equal(set.status, 200);
    const body = await set.json();
    assert.equal(body.success, true);
    assert.deepEqual([body.goal.type, body.goal.target, body.goal.progress], ["woodcutting", 25, 0]);
    assert.equal(body.goalsPaused, false);
    assert.ok(body.availableGoals.some((goal: { type: string }) => goal.type === "mining"));
    await waitForAsync(async () => (await xp(agent.characterId, "woodcutting")) >= 25, "woodcutting XP");
    // The goal is reached: it shows full progress, or the agent has already moved on to one of its own.
    await waitForAsync(async () => {
      const { goal } = await get(`/api/agents/${agent.agentId}/goal`);
      return goal.progress === 1 || goal.id !== body.goal.id;
    }, "the goal reached");
  });

  it("banks what it gathered when its inventory is full, keeping its kit, instead of dropping it", async () => {
    const agent = await newAgent("Hoarder");
    const [listing] = await matchMaker.query({ name: "world" });
    const world = (matchMaker.getLocalRoomById(listing!.roomId) as unknown as { world: World }).world;
    const full = [
      { slot: 0, itemId: "bronze_axe", quantity: 1 },
      { slot: 1, itemId: "bronze_sword", quantity: 1 },
      ...Array.from({ length: 26 }, (_, i) => ({ slot: i + 2, itemId: "logs", quantity: 1 })),
    ];
    world.replaceInventory(agent.characterId, full);
    assert.equal((await post(`/api/agents/${agent.agentId}/goal`, { type: "woodcutting" })).status, 200);
    const stored = () => server.runtime.characters.load(agent.characterId);
    await waitForAsync(
      async () =>
        ((await stored())?.bank ?? []).some((entry) => entry.itemId === "logs" && entry.quantity >= 26),
      "the 26 logs in the bank",
    );
    const kept = (await stored())!.inventory.map((entry) => entry.itemId);
    assert.ok(
      kept.includes("bronze_axe") && kept.includes("bronze_sword"),
      `the axe and sword kept: ${kept}`,
    );
  });

  it("pauses goals on stop (the agent stands idle) and picks one itself again on resume", async () => {
    const agent = await newAgent("Idler");
    // Fishing, not mining: a fishing spot never depletes, so once a catch shows the agent is surely still
    // at it (a rock depletes with every ore, ending the action by itself, and other agents take rocks).
    await post(`/api/agents/${agent.agentId}/goal`, { type: "fishing" });
    await waitForAsync(async () => (await xp(agent.characterId, "fishing")) > 0, "the agent fishing");
    // Stopping must end the fishing in progress, not just the choice of the next action.
    const stopped = await (await post(`/api/agents/${agent.agentId}/goal/stop`)).json();
    assert.deepEqual([stopped.success, stopped.goal, stopped.goalsPaused], [true, null, true]);
    const before = await xp(agent.characterId, "fishing");
    // The agent thinks every 2 ticks (100 ms at WORLD_TICK_MS 50) and a fishing spot gets one attempt
    // a tick (a level-1 catch: 48/256 of them): 20 think intervals, 40 attempts, are time enough for a
    // catch if it still fished.
    await sleep(2000);
    assert.equal(await xp(agent.characterId, "fishing"), before, "no fishing while paused");
    assert.equal((await get(`/api/agents/${agent.agentId}/goal`)).goal, null);

    const resumed = await (await post(`/api/agents/${agent.agentId}/goal/resume`)).json();
    assert.equal(resumed.goalsPaused, false);
    await waitForAsync(
      async () => (await get(`/api/agents/${agent.agentId}/goal`)).goal !== null,
      "a goal of its own choosing",
    );
  });

  it("stores the goal set last when goals are set one right after another", async () => {
    const agent = await newAgent("Decisive");
    const repository = (server.runtime.agents as unknown as { options: { agents: AgentRepository } }).options
      .agents;
    const save = repository.saveControl;
    let slowWrites = 1;
    let writing!: () => void;
    const written = new Promise<void>((resolve) => {
      writing = resolve;
    });
    // A write of what the agent was told then, that takes longer than the next one (a busy connection).
    repository.saveControl = async (control, fence) => {
      const told = { ...control };
      if (slowWrites-- > 0) {
        writing();
        await sleep(300);
      }
      return save.call(repository, told, fence);
    };
    try {
      const first = post(`/api/agents/${agent.agentId}/goal`, { type: "mining" });
      await written;
      const second = await post(`/api/agents/${agent.agentId}/goal`, { type: "fishing" });
      assert.equal((await second.json()).goal.type, "fishing");
      assert.equal((await first).status, 200);
    } finally {
      repository.saveControl = save;
    }
    const stored = (await repository.all()).find((row) => row.id === agent.agentId);
    assert.equal((stored?.goal as { type?: string } | null)?.type, "fishing", "what a restart brings back");
  });

  it("pursues a goal its owner sets while goals are paused, and chooses none itself once it is reached", async () => {
    const agent = await newAgent("Obedient");
    await post(`/api/agents/${agent.agentId}/goal/stop`);
    const set = await (
      await post(`/api/agents/${agent.agentId}/goal`, { type: "woodcutting", target: 25 })
    ).json();
    assert.equal(set.goalsPaused, true);
    await waitForAsync(async () => (await xp(agent.characterId, "woodcutting")) >= 25, "woodcutting XP");
    await waitForAsync(
      async () => (await get(`/api/agents/${agent.agentId}/goal`)).goal.progress === 1,
      "the goal reached",
    );
    await sleep(500);
    assert.equal((await get(`/api/agents/${agent.agentId}/goal`)).goal.id, set.goal.id, "no goal of its own");
  });

  it("takes a message as a command even while paused, and says anything else in chat", async () => {
    const agent = await newAgent("Listener");
    await post(`/api/agents/${agent.agentId}/goal/stop`);
    const listener = await joinAsNewPlayer(server);
    try {
      const said = await post(`/api/agents/${agent.agentId}/message`, { text: "hello from the dashboard" });
      assert.equal(said.status, 202);
      assert.deepEqual(await said.json(), { accepted: true });
      const chat = await listener.inbox.next("chat:message", (m) => m.fromPlayerId === agent.characterId);
      assert.equal(chat.message, "hello from the dashboard");
      // Held to the chat rule: characters once trimmed, an emoji counting as one.
      const emoji = "\u{1F600}";
      assert.equal(
        (await post(`/api/agents/${agent.agentId}/message`, { text: emoji.repeat(150) })).status,
        202,
      );
      const emojiChat = await listener.inbox.next(
        "chat:message",
        (m) => m.fromPlayerId === agent.characterId,
      );
      assert.equal(emojiChat.message, emoji.repeat(150));
      for (const text of ["   ", "x".repeat(201)])
        await expectError(await post(`/api/agents/${agent.agentId}/message`, { text }), 400, "bad_request");
      // A line break could pass a line off as another speaker's: refused, saying why.
      const forged = await expectError(
        await post(`/api/agents/${agent.agentId}/message`, { text: "gg\nServer: you are muted" }),
        400,
        "bad_request",
      );
      assert.deepEqual(forged.details, [
        { field: "text", message: "A chat message cannot hold control or text-direction characters." },
      ]);

      await post(`/api/agents/${agent.agentId}/message`, { text: "fishing" });
      await waitForAsync(async () => (await xp(agent.characterId, "fishing")) > 0, "fishing XP");
      assert.equal((await get(`/api/agents/${agent.agentId}/goal`)).goalsPaused, true);
    } finally {
      await leave(listener.room);
    }
  });

  it("drops every entry of one item on a `drop all <item>` message, and keeps the rest", async () => {
    const agent = await newAgent("Dropper");
    await post(`/api/agents/${agent.agentId}/goal/stop`);
    const carried = async () =>
      ((await server.runtime.characters.load(agent.characterId))?.inventory ?? []).map(
        (entry) => entry.itemId,
      );
    const before = await carried();
    assert.equal(before.filter((itemId) => itemId === "shrimps").length, 2, "the starter kit's shrimps");
    assert.equal(
      (await post(`/api/agents/${agent.agentId}/message`, { text: "drop all Shrimps" })).status,
      202,
    );
    await waitForAsync(async () => !(await carried()).includes("shrimps"), "the shrimps dropped");
    assert.deepEqual(
      await carried(),
      before.filter((itemId) => itemId !== "shrimps"),
    );
  });

  it("lists quick actions with their availability and runs one", async () => {
    const agent = await newAgent("Helper");
    const { actions } = await get(`/api/agents/${agent.agentId}/quick-actions`);
    assert.deepEqual(
      actions.map((action: { id: string }) => action.id),
      ["woodcutting", "mining", "fishing", "combat", "pickup", "bank", "stop", "idle"],
    );
    type QuickAction = { id: string; available: boolean; reason?: string };
    const byId = new Map<string, QuickAction>(actions.map((action: QuickAction) => [action.id, action]));
    // Trees near the spawn may be felled by other agents; the fishing spot never runs out.
    assert.equal(byId.get("fishing")?.available, true, "a fishing spot in view");
    assert.equal(byId.get("bank")?.available, true, "the starter kit's coins to bank");
    assert.equal(byId.get("stop")?.available, true);
    for (const action of byId.values())
      assert.equal(action.available, action.reason === undefined, `${action.id}: a reason when unavailable`);

    // The endpoints that take no body refuse one with anything in it, and change nothing.
    for (const [path, body] of [
      ["goal/stop", { goalsPaused: false }],
      ["goal/stop", "null"],
      ["goal/resume", "5"],
      ["quick-actions/stop", { bogus: 1 }],
    ] as const)
      await expectError(await post(`/api/agents/${agent.agentId}/${path}`, body), 400, "bad_request");
    assert.equal(
      (await get(`/api/agents/${agent.agentId}/goal`)).goalsPaused,
      false,
      "refusals change nothing",
    );
    const ran = await post(`/api/agents/${agent.agentId}/quick-actions/stop`);
    assert.equal(ran.status, 202);
    assert.equal((await get(`/api/agents/${agent.agentId}/goal`)).goalsPaused, true);
    await expectError(await post(`/api/agents/${agent.agentId}/quick-actions/dance`), 404, "not_found");
  });

  it("lets only the owner control an agent, and only an admin the configured ones", async () => {
    const agent = await newAgent("Guarded");
    const stranger = (await signInAnonymously(server)).token;
    await expectError(await post(`/api/agents/${agent.agentId}/goal/stop`, {}, stranger), 403, "forbidden");
    const deleting = { method: "DELETE", token: stranger };
    await expectError(await request(server, `/api/agents/${agent.agentId}`, deleting), 403, "forbidden");
    assert.equal(
      (await get(`/api/agents/${agent.agentId}/goal`, stranger)).goalsPaused,
      false,
      "reading is open",
    );

    const warden = (await list()).find((a) => a.name === "Warden")!;
    await expectError(await post(`/api/agents/${warden.agentId}/goal/stop`), 403, "forbidden");
    const admin = await joinAsNewPlayer(server, owner);
    try {
      admin.room.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
      await admin.inbox.next("chat:message", (m) => m.fromPlayerId === "server");
      const stopped = await post(`/api/agents/${warden.agentId}/goal/stop`);
      assert.equal(stopped.status, 200);
      await post(`/api/agents/${warden.agentId}/goal/resume`);
    } finally {
      await leave(admin.room);
    }
  });

  it("refuses an agent past the account's maximum, a bad name and unknown ids", async () => {
    for (const name of ["First", "Second", "Third"]) await newAgent(name);
    await expectError(await post("/api/agents", { name: "Fourth" }), 409, "conflict");
    const token = (await signInAnonymously(server)).token;
    await expectError(await post("/api/agents", { name: "Third" }, token), 409, "conflict");
    await expectError(await post("/api/agents", { name: "x" }), 400, "bad_request");
    // One world here: naming another, or a world that is not a whole number, is refused and makes nothing.
    for (const world of [2, 0, "1"]) {
      const refused = await expectError(
        await post("/api/agents", { name: "Elsewhere", world }, token),
        400,
        "bad_request",
      );
      assert.deepEqual(
        refused.details?.map((detail) => detail.field),
        ["world"],
        JSON.stringify(refused),
      );
    }
    assert.ok(!(await list()).some((agent) => agent.name === "Elsewhere"));
    await expectError(await request(server, "/api/agents/nobody/goal", { token }), 404, "not_found");
    await expectError(await request(server, "/api/agents/mapping/nobody", { token }), 404, "not_found");
    await expectError(await request(server, "/api/agents"), 401, "unauthorized");
  });

  it("stops an agent on DELETE and deletes it with its character, so that its name can be used again", async () => {
    const agent = await newAgent("Leaver");
    const deleted = await request(server, `/api/agents/${agent.agentId}`, { method: "DELETE", token: owner });
    assert.equal(deleted.status, 204);
    assert.ok(!(await list()).some((a) => a.agentId === agent.agentId));
    // Neither in the world nor stored: the position is looked up in the world first.
    const position = await request(server, `/api/characters/${agent.characterId}/position`, { token: owner });
    assert.equal(position.status, 404);
    assert.equal(await server.runtime.characters.load(agent.characterId), undefined);
    const again = await newAgent("Leaver");
    assert.notEqual(again.characterId, agent.characterId);
    await waitForAsync(online(again.agentId), "the new agent of that name in the world");
  });

  it("lets the agent process delete only its own agents' accounts, with its own token", async () => {
    const agent = await newAgent("Homebody");
    const path = `/api/v1/agent-process/agents/${agent.agentId}`;
    // A player's token, or an agent's own, is not the agent process's.
    await expectError(await request(server, path, { method: "DELETE", token: owner }), 401, "unauthorized");
    const agentsOwn = await issueAgentToken(server.runtime.jwtSecret, agent.agentId);
    await expectError(
      await request(server, path, { method: "DELETE", token: agentsOwn }),
      401,
      "unauthorized",
    );
    // This server's own agent is not the agent process's to delete.
    const agentProcess = await issueAgentProcessToken(server.runtime.jwtSecret);
    await expectError(
      await request(server, path, { method: "DELETE", token: agentProcess }),
      409,
      "conflict",
    );
    assert.ok(await server.runtime.characters.load(agent.characterId), "its character stays");
    assert.equal(await online(agent.agentId)(), true, "it plays on");
    await expectError(
      await request(server, "/api/v1/agent-process/agents/a%00b", { method: "DELETE", token: agentProcess }),
      400,
      "bad_request",
    );
    // One that was never there is gone already.
    const absent = await request(server, "/api/v1/agent-process/agents/never-made", {
      method: "DELETE",
      token: agentProcess,
    });
    assert.equal(absent.status, 204);
  });

  it("keeps running an agent whose DELETE failed to be stored, so that DELETE can be tried again", async () => {
    const agent = await newAgent("Stubborn");
    const repository = (server.runtime.agents as unknown as { options: { agents: AgentRepository } }).options
      .agents;
    const remove = repository.delete;
    repository.delete = async () => {
      throw new Error("database unavailable");
    };
    try {
      await expectError(
        await request(server, `/api/agents/${agent.agentId}`, { method: "DELETE", token: owner }),
        500,
        "internal",
      );
    } finally {
      repository.delete = remove;
    }
    // Still stored: were it not running, it would be back after a restart although no DELETE could reach it.
    assert.equal(await online(agent.agentId)(), true, "still listed and in the world");
    const again = await request(server, `/api/agents/${agent.agentId}`, { method: "DELETE", token: owner });
    assert.equal(again.status, 204);
    assert.ok(!server.runtime.agents.list().some((a) => a.record.id === agent.agentId));
  });

  it("leaves the world on DELETE while its connection is coming back from a drop", async () => {
    const agent = await newAgent("Flicker");
    // The SDK reconnects by itself only a connection that has been up for 5 s.
    await sleep(5200);
    const [listing] = await matchMaker.query({ name: "world" });
    const world = matchMaker.getLocalRoomById(listing!.roomId)!;
    const client = world.clients.find(
      (c) => (c.auth as { characterId?: string })?.characterId === agent.characterId,
    )!;
    // Cut without a close frame, as a failing network does: the SDK tries again within 200 ms.
    (client.ref as unknown as { terminate(): void }).terminate();
    await sleep(50);
    const deleting = request(server, `/api/agents/${agent.agentId}`, { method: "DELETE", token: owner });
    assert.equal(await Promise.race([deleting.then((r) => r.status), sleep(3000)]), 204, "answered");
    // The position is looked up in the world first: 404 once the character is out of it, and deleted.
    await waitForAsync(
      async () =>
        (await request(server, `/api/characters/${agent.characterId}/position`, { token: owner })).status ===
        404,
      "the character left the world",
      5000,
    );
    await sleep(500);
    assert.ok(
      !world.clients.some((c) => (c.auth as { characterId?: string })?.characterId === agent.characterId),
      "its connection did not come back",
    );
  });

  it("joins the world again when the world lets it go", async () => {
    const agent = await newAgent("Boomerang");
    const [listing] = await matchMaker.query({ name: "world" });
    const world = matchMaker.getLocalRoomById(listing!.roomId)!;
    const client = world.clients.find(
      (c) => (c.auth as { characterId?: string })?.characterId === agent.characterId,
    );
    assert.ok(client, "the agent's client is in the world room");
    client.leave(4000, "kicked by the test");
    await waitForAsync(
      async () => (await online(agent.agentId)()) === false,
      "the agent is out of the world",
    );
    await waitForAsync(online(agent.agentId), "the agent is back in the world");
    const rejoined = world.clients.find(
      (c) => (c.auth as { characterId?: string })?.characterId === agent.characterId,
    );
    assert.ok(rejoined && rejoined !== client, "a new session of the agent");
  });

  it("starts an agent created while the world waits for its database once the world's writes commit", async () => {
    const failing = { on: true, failed: 0 };
    const restore = interceptWorldWrites(server.runtime.worldStore, async (_write, save) => {
      if (!failing.on) return save();
      failing.failed++;
      throw new Error("database unavailable");
    });
    try {
      // The configured agent acts, so a tick's write fails and the world waits.
      await waitForAsync(async () => failing.failed > 0, "a failed write");
      const response = await post("/api/agents", { name: "Patient" });
      assert.equal(response.status, 201, await response.clone().text());
      const agent: AgentSummary = await response.json();
      // It joins, and is greeted with the ticks the world held: it plays once they are durable.
      await sleep(1500);
      assert.equal(await online(agent.agentId)(), false, "not playing while the world waits");
      failing.on = false;
      // Well within the agent's first delay before joining again, had its join been refused.
      await waitForAsync(online(agent.agentId), "the agent is in the world", 900);
    } finally {
      restore();
    }
  });

  it("stays out when another session of its character replaces it, instead of taking it back", async () => {
    const agent = await newAgent("Yielder");
    // What a copy of the same agent run by another server process would do: join as its character.
    const other = await joinAsNewPlayer(
      server,
      await issueAgentToken(server.runtime.jwtSecret, agent.agentId),
    );
    assert.equal(other.id, agent.characterId);
    let replaced = false;
    other.room.onLeave(() => {
      replaced = true;
    });
    await waitForAsync(
      async () => (await online(agent.agentId)()) === false,
      "the agent is out of the world",
    );
    // Well past the agent's first delay before joining again.
    await sleep(2500);
    assert.equal(replaced, false, "the other session is not replaced in turn");
    await leave(other.room);
  });

  it("measures a goal set while the agent is out of the world from the XP it had, not from none", async () => {
    const agent = await newAgent("Absentee");
    const [listing] = await matchMaker.query({ name: "world" });
    const world = matchMaker.getLocalRoomById(listing!.roomId)!;
    world.clients
      .find((c) => (c.auth as { characterId?: string })?.characterId === agent.characterId)!
      .leave(4000, "kicked by the test");
    await waitForAsync(
      async () => (await online(agent.agentId)()) === false,
      "the agent is out of the world",
    );
    // A new character has 1,154 constitution XP, which counts towards combat: measured from none, the
    // goal's 500 XP would be reached, and replaced, as soon as the agent is back.
    const set = await post(`/api/agents/${agent.agentId}/goal`, { type: "combat" });
    assert.equal(set.status, 200, await set.clone().text());
    const { goal } = await set.json();
    await waitForAsync(online(agent.agentId), "the agent is back in the world");
    await sleep(500);
    const now = (await get(`/api/agents/${agent.agentId}/goal`)).goal;
    assert.equal(now.id, goal.id, "the same goal");
    assert.ok(now.progress < 0.5, `progress ${now.progress}`);
  });
});

describe("/api/agents while the server shuts down", function () {
  this.timeout(30000);

  it("refuses agent requests with 503 once the agents have left, and loads none again", async () => {
    const server = await startTestServer({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "50", AGENTS: "Keeper" });
    try {
      const { token } = await signInAnonymously(server);
      await waitForAsync(
        async () => (await (await request(server, "/api/agents", { token })).json()).agents?.length === 1,
        "the configured agent runs",
      );
      // The first step of a shutdown; a request may still reach the world before it closes.
      await server.runtime.agents.close();
      await expectError(await request(server, "/api/agents", { token }), 503, "unavailable");
      assert.equal(
        server.runtime.agents.list().length,
        0,
        "no agent loaded again in a process that is stopping",
      );
      // Nor by a world that opens in it meanwhile (the agents follow the world).
      await server.runtime.agents.host(1, { check: async () => {} });
      assert.equal(server.runtime.agents.list().length, 0);
    } finally {
      await server.stop();
    }
  });

  it("lets an agent whose character is in a fight go at once: DELETE and the shutdown do not wait for it", async () => {
    // 600 ms ticks: a fight keeps a character in the world for 17 of them after the last swing, over 10 s.
    const server = await startTestServer({ ...GENEROUS_LIMITS, AGENTS: "Scrapper" });
    try {
      const { token } = await signInAnonymously(server);
      const created = await request(server, "/api/agents", {
        method: "POST",
        body: { name: "Brawler" },
        token,
      });
      assert.equal(created.status, 201, await created.clone().text());
      const brawler: AgentSummary = await created.json();
      await waitForAsync(
        async () => server.runtime.agents.list().every((agent) => agent.online),
        "both agents play",
        20000,
      );
      const [listing] = await matchMaker.query({ name: "world" });
      type Fighters = { tick: number; players: Map<string, { lastStruckTick: number }> };
      const world = (matchMaker.getLocalRoomById(listing!.roomId) as unknown as { world: World }).world;
      const { state } = world as unknown as { state: Fighters };
      // As a monster's swing at each of them does.
      const struck = () => {
        for (const agent of server.runtime.agents.list()) {
          state.players.get(agent.record.characterId)!.lastStruckTick = state.tick;
        }
      };

      struck();
      const deleting = performance.now();
      const deleted = await request(server, `/api/agents/${brawler.agentId}`, { method: "DELETE", token });
      assert.equal(deleted.status, 204);
      assert.ok(performance.now() - deleting < 3000, "DELETE answered without waiting for the fight");
      assert.ok(world.has(brawler.characterId), "its character fights on");

      struck();
      const stopping = performance.now();
      await server.stop();
      assert.ok(performance.now() - stopping < 5000, "the shutdown did not wait for the fight to end");
    } catch (error) {
      await server.stop();
      throw error;
    }
  });

  it("does not start an agent whose creation was being stored when the agents left", async () => {
    const server = await startTestServer({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "50" });
    try {
      const { token } = await signInAnonymously(server);
      const repository = (server.runtime.agents as unknown as { options: { agents: AgentRepository } })
        .options.agents;
      const store = repository.create.bind(repository);
      let storing!: () => void;
      const stored = new Promise<void>((resolve) => {
        storing = resolve;
      });
      let resume!: () => void;
      const resumed = new Promise<void>((resolve) => {
        resume = resolve;
      });
      repository.create = async (...args) => {
        const characterId = await store(...args);
        storing();
        await resumed;
        return characterId;
      };
      const creating = request(server, "/api/agents", { method: "POST", body: { name: "Latecomer" }, token });
      await stored;
      await server.runtime.agents.close();
      resume();
      const agent: AgentSummary = await (await creating).json();
      // Stored, it runs with the server's next start; here, nothing would ever stop it.
      await sleep(1000);
      assert.equal(server.runtime.agents.list().length, 0, "not running in a process that is stopping");
      const position = await request(server, `/api/characters/${agent.characterId}/position`, { token });
      assert.equal((await position.json()).online, false, "not in the world");
    } finally {
      await server.stop();
    }
  });
});

// CI's PostgreSQL: a database that outlives a server, and statements that overlap (PGlite runs one at a
// time, so creations that come at once would not interleave there).
const withPostgres = postgresUrl ? describe : describe.skip;

/** Runs `use` against a server of its own on a fresh PostgreSQL database, both gone afterwards. */
async function onFreshDatabase(env: Record<string, string>, use: (server: TestServer) => Promise<void>) {
  const database = await freshDatabaseUrl(postgresUrl!);
  try {
    const server = await startTestServer({
      ...GENEROUS_LIMITS,
      WORLD_TICK_MS: "50",
      DATABASE_URL: database.url,
      ...env,
    });
    try {
      await use(server);
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}

withPostgres("/api/agents: creations that come at once", function () {
  this.timeout(60000);

  it("holds the account's maximum against creations that come at once", () =>
    onFreshDatabase({ AGENTS_PER_ACCOUNT: "3" }, async (server) => {
      const { token } = await signInAnonymously(server);
      const names = ["Rush", "Rusha", "Rushb", "Rushc", "Rushd", "Rushe"];
      const statuses = await Promise.all(
        names.map(
          async (name) =>
            (await request(server, "/api/agents", { method: "POST", body: { name }, token })).status,
        ),
      );
      assert.deepEqual(
        statuses.sort(),
        [201, 201, 201, 409, 409, 409],
        "three agents made, the others refused",
      );
      const listed = (await (await request(server, "/api/agents", { token })).json()).agents;
      assert.equal(listed.length, 3);
    }));

  it("holds the server's maximum against creations from many accounts at once, the configured agents aside", () =>
    onFreshDatabase({ AGENTS: "Keeper", AGENTS_PER_ACCOUNT: "3", AGENTS_MAX: "4" }, async (server) => {
      const tokens = await Promise.all([1, 2, 3].map(async () => (await signInAnonymously(server)).token));
      const create = (name: string, token: string) =>
        request(server, "/api/agents", { method: "POST", body: { name }, token });
      const responses = await Promise.all(
        tokens.flatMap((token, account) =>
          ["a", "b", "c"].map((suffix) => create(`Crowd${account}${suffix}`, token)),
        ),
      );
      assert.deepEqual(
        responses.map((response) => response.status).sort(),
        [201, 201, 201, 201, 409, 409, 409, 409, 409],
        "four agents made in all, the others refused",
      );
      const refusal = await responses.find((response) => response.status === 409)!.json();
      assert.equal(refusal.error.code, "conflict");
      assert.match(refusal.error.message, /4 agents/);
      const listed: AgentSummary[] = (
        await (await request(server, "/api/agents", { token: tokens[0] })).json()
      ).agents;
      assert.deepEqual(
        listed.map((agent) => agent.name).filter((name) => !name.startsWith("Crowd")),
        ["Keeper"],
      );
      assert.equal(listed.length, 5);

      // A place freed is a place to take.
      const made: AgentSummary = await responses.find((response) => response.status === 201)!.json();
      const owner = tokens.find((_, account) => made.name.startsWith(`Crowd${account}`))!;
      const deleted = await request(server, `/api/agents/${made.agentId}`, {
        method: "DELETE",
        token: owner,
      });
      assert.equal(deleted.status, 204);
      assert.equal((await create("Latecomer", owner)).status, 201);
    }));
});

withPostgres("/api/agents across a restart", function () {
  this.timeout(60000);

  it("brings the stored agents back with the server, in their worlds, with their goals, beside a configured name a player took", async () => {
    const database = await freshDatabaseUrl(postgresUrl!);
    // One secret for both servers, so the first one's token is still good.
    const env = {
      ...GENEROUS_LIMITS,
      WORLD_TICK_MS: "50",
      DATABASE_URL: database.url,
      JWT_SECRET: "restart-secret",
      WORLDS: "2",
    };
    try {
      const first = await startTestServer(env);
      const { token } = await signInAnonymously(first);
      const created = await request(first, "/api/agents", {
        method: "POST",
        body: { name: "Returner", world: 2 },
        token,
      });
      const agent = await created.json();
      const rows = (await (await request(first, "/api/agents", { token })).json()).agents;
      assert.deepEqual(
        rows.map((row: AgentSummary & { world: number }) => [row.name, row.world]),
        [["Returner", 2]],
        "listed once, in its world, by the one process that runs both worlds",
      );
      await request(first, `/api/agents/${agent.agentId}/goal`, {
        method: "POST",
        body: { type: "mining" },
        token,
      });
      // A player takes a name that the next start's configuration gives an agent.
      const squatter = await signInAnonymously(first);
      const taken = await request(first, "/api/v1/player", {
        method: "POST",
        body: { name: "Squatter" },
        token: squatter.token,
      });
      assert.equal(taken.status, 200, "the anonymous player's character takes the name");
      await first.stop();

      const second = await startTestServer({ ...env, AGENTS: "Squatter,Sentinel" });
      try {
        const listed = async () =>
          ((await (await request(second, "/api/agents", { token })).json()).agents as AgentSummary[]).find(
            (a) => a.agentId === agent.agentId,
          );
        // A lone process opens at start the world its stored agent plays in, before anyone asks for it.
        const playing = async () =>
          (await (await request(second, "/api/v1/worlds", { token })).json()).worlds.map(
            (world: { playersOnline: number }) => world.playersOnline,
          );
        await waitForAsync(async () => (await playing())[1] === 1, "world 2 open, its agent in it");
        await waitForAsync(async () => (await listed())?.online === true, "the agent is back in the world");
        assert.equal(((await listed()) as AgentSummary & { world: number }).world, 2);
        const goal = await (await request(second, `/api/agents/${agent.agentId}/goal`, { token })).json();
        assert.equal(goal.goal.type, "mining");
        // The configured agent whose name is taken is left out (and logged); the others run.
        const names = (await (await request(second, "/api/agents", { token })).json()).agents.map(
          (a: AgentSummary) => a.name,
        );
        assert.deepEqual(names.sort(), ["Returner", "Sentinel"]);
      } finally {
        await second.stop();
      }
      // Started with one world, the agent of world 2 stays stored and out: no world 2 opens for it.
      const third = await startTestServer({ ...env, WORLDS: "1" });
      try {
        const rows = (await (await request(third, "/api/agents", { token })).json()).agents;
        assert.deepEqual(
          rows.map((row: AgentSummary) => row.name),
          ["Sentinel"],
          "world 1's stored agent runs; Returner, of world 2, does not",
        );
        const { worlds } = await (await request(third, "/api/v1/worlds", { token })).json();
        assert.equal(worlds.length, 1);
        const opened = await matchMaker.query({ name: "world" });
        assert.deepEqual(
          opened.map((listing) => listing.metadata?.world),
          [1],
          "world 1 alone runs",
        );
      } finally {
        await third.stop();
      }
    } finally {
      await database.drop();
    }
  });
});

describe("an agent fighting where one monster is left", function () {
  this.timeout(60000);
  type Npc = {
    id: string;
    alive: boolean;
    health?: number;
    respawnTick: number;
    targetId?: string;
    spawn: { x: number; z: number };
    def: { id: string; role: string; combat?: Record<string, number> };
  };
  type Player = {
    position: { x: number; z: number };
    character: { skills: Record<string, { level: number; xp: number }> };
    nextEatTick: number;
  };
  type Intent = { type: string; action?: string };
  let server: TestServer;
  let world: {
    state: {
      tick: number;
      players: Map<string, Player>;
      maxHealth(player: Player): number;
      setHealth(player: Player, health: number): void;
      npcs: Map<string, Npc>;
      deadNpcs: Set<Npc>;
      deaths: Set<string>;
      npcGrid: { remove(npc: Npc): void };
      entityRemoved(id: string): void;
      fail(player: Player, error: { code: string }): void;
    };
    inventory(id: string): unknown[];
    replaceInventory(id: string, entries: unknown[]): void;
    submit(playerId: string, intent: Intent, ref?: number): unknown;
  };
  /** The chicken of 37,36: the one monster an agent fights that is left alive. */
  let left: Npc;
  let token: string;

  beforeEach(async () => {
    server = await startTestServer({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "50" });
    const [listing] = await matchMaker.query({ name: "world" });
    const room = matchMaker.getLocalRoomById(listing!.roomId)!;
    world = (room as unknown as { world: typeof world }).world;
    const { state } = world;
    // The others die and do not come back.
    const npcs = [...state.npcs.values()];
    left = npcs.find((npc) => npc.def.id === "chicken" && npc.spawn.x === 37 && npc.spawn.z === 36)!;
    assert.ok(left, "the chicken of 37,36");
    for (const npc of npcs) {
      if (npc === left || npc.def.role !== "monster" || !npc.alive) continue;
      npc.alive = false;
      npc.targetId = undefined;
      npc.respawnTick = Number.MAX_SAFE_INTEGER;
      state.npcGrid.remove(npc);
      state.deadNpcs.add(npc);
      state.entityRemoved(npc.id);
    }
    ({ token } = await signInAnonymously(server));
  });
  afterEach(() => server?.stop());

  /**
   * A new agent whose strength and defence are far ahead of its attack, with health to spare: it keeps
   * the style that trains attack, and nothing but what a test does bears on its target.
   */
  async function fighter(name: string): Promise<{ agent: AgentSummary; player: Player }> {
    const created = await request(server, "/api/agents", { method: "POST", body: { name }, token });
    assert.equal(created.status, 201);
    const agent: AgentSummary = await created.json();
    const player = world.state.players.get(agent.characterId)!;
    const skills = player.character.skills;
    skills.strength = { level: 37, xp: 20_000 };
    skills.defence = { level: 37, xp: 20_000 };
    skills.constitution = { level: 40, xp: 37_224 };
    // Sent to the agent with its next player:sync and world:update.
    world.state.setHealth(player, world.state.maxHealth(player));
    const set = await request(server, `/api/agents/${agent.agentId}/goal`, {
      method: "POST",
      body: { type: "combat", target: 10_000_000 },
      token,
    });
    assert.equal(set.status, 200);
    return { agent, player };
  }

  it("attacks the monster it killed again once it respawns", async () => {
    const { agent } = await fighter("Hunter");
    const combatXp = async () => {
      const { skills } = await (
        await request(server, `/api/characters/${agent.characterId}/skills`, { token })
      ).json();
      return skills.attack.xp + skills.strength.xp + skills.defence.xp;
    };

    await waitForAsync(async () => !left.alive, "the agent kills the chicken", 20000);
    await waitForAsync(async () => left.alive, "the chicken respawns", 20000);
    const before = await combatXp();
    await waitForAsync(async () => (await combatXp()) > before, "the agent fights the chicken again", 15000);
  });

  it("flees the fight it is in once its bite is refused and no food is left", async () => {
    // The chicken outlives the fight.
    left.health = 100_000;
    const { agent, player } = await fighter("Runner");
    await waitForAsync(
      async () => left.targetId === agent.characterId,
      "the chicken fights the agent",
      20000,
    );

    const { state } = world;
    const refusedBites: unknown[] = [];
    const fail = state.fail.bind(state);
    state.fail = (failing, error) => {
      if (failing === player && error.code === "too_soon") refusedBites.push(error);
      fail(failing, error);
    };
    const flights: Intent[] = [];
    const submit = world.submit.bind(world);
    world.submit = (playerId, intent, ref) => {
      if (playerId === agent.characterId && intent.action === "flee") flights.push(intent);
      return submit(playerId, intent, ref);
    };
    // Its hits leave the agent 1 health at least: one that thinks slowly on a loaded machine is not
    // killed (and its fight ended) before it decides.
    const setHealth = state.setHealth.bind(state);
    state.setHealth = (target, health) => setHealth(target, target === player ? Math.max(1, health) : health);
    // Low enough that the chicken's hits matter, with one shrimp it may not eat yet: its bite is refused.
    player.nextEatTick = Number.MAX_SAFE_INTEGER;
    state.setHealth(player, 2);
    world.replaceInventory(agent.characterId, [{ slot: 0, itemId: "shrimps", quantity: 1 }]);
    await waitForAsync(async () => refusedBites.length > 0, "the agent's bite is refused", 10000);

    world.replaceInventory(agent.characterId, []);
    await waitForAsync(async () => flights.length > 0, "the agent flees the chicken", 10000);
  });

  it("fights again once it has died, the monster that killed it still in view", async () => {
    // The chicken outlives the fight.
    left.health = 100_000;
    const { agent, player } = await fighter("Phoenix");
    await waitForAsync(
      async () => left.targetId === agent.characterId,
      "the chicken fights the agent",
      20000,
    );
    // One of its bites kills, once.
    const harmless = left.def;
    left.def = { ...harmless, combat: { ...harmless.combat, attack: 10_000, strength: 10_000 } };
    const { deaths } = world.state;
    const died = deaths.add.bind(deaths);
    let cameBackAt: { x: number; z: number } | undefined;
    deaths.add = (id) => {
      if (id === agent.characterId) {
        left.def = harmless;
        cameBackAt ??= { ...player.position };
      }
      return died(id);
    };
    await waitForAsync(async () => cameBackAt !== undefined, "the agent dies", 10000);
    // Meadowbrook's spawn point, five tiles from the chicken: it comes back within the chicken's view.
    assert.deepEqual(cameBackAt, { x: 32, z: 32 });
    await waitForAsync(
      async () => left.targetId === agent.characterId,
      "the agent attacks the chicken again",
      10000,
    );
  });
});
