import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { ACTION_NAMES } from "../../src/agents/actions/types.js";
import type { Tile } from "../../src/game/types.js";
import type { World } from "../../src/game/world.js";
import { GENEROUS_LIMITS, request, signInAnonymously } from "../api/support.js";
import { joinAsNewPlayer, leave, sleep, waitForAsync } from "../support/players.js";
import { type LogLine, recordingLogger } from "../support/recording-logger.js";
import { startTestServer } from "../support/server.js";
import { type ModelStub, offeredTools, type StubProvider, startModelStub } from "./support/model-stubs.js";

const KEY = "sk-test-very-secret-key-0123456789";

/** The live world's state of a player: its health is set directly, as a fight would leave it. */
interface Internals {
  state: { players: Map<string, unknown>; setHealth(player: unknown, health: number): void };
}

/** The variables that point the server at a stub of each provider. */
function envFor(provider: StubProvider, stub: ModelStub): Record<string, string> {
  switch (provider) {
    case "openai":
      return { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: stub.url, AGENT_MODEL: "openai:gpt-test" };
    case "anthropic":
      return { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: stub.url, AGENT_MODEL: "anthropic:claude-test" };
    case "google":
      return {
        GOOGLE_GENERATIVE_AI_API_KEY: KEY,
        GOOGLE_GENERATIVE_AI_BASE_URL: stub.url,
        AGENT_MODEL: "google:gemini-test",
      };
    case "local":
      return { LOCAL_MODEL_URL: stub.url, AGENT_MODEL: "local:llama-test" };
  }
}

/** A server whose agents a stub model drives, and one agent beside a tree with a woodcutting goal. */
async function drivenAgent(provider: StubProvider, extraEnv: Record<string, string> = {}) {
  const stub = await startModelStub(provider);
  const { logger, lines } = recordingLogger("info");
  const server = await startTestServer(
    {
      ...GENEROUS_LIMITS,
      WORLD_TICK_MS: "50",
      AGENT_MODEL_TIMEOUT_MS: "1000",
      AGENT_MODEL_MAX_TOKENS: "300",
      AGENT_MODEL_CALLS_PER_MIN: "30",
      ...envFor(provider, stub),
      ...extraEnv,
    },
    { logger },
  );
  const owner = (await signInAnonymously(server)).token;
  const created = await request(server, "/api/agents", {
    token: owner,
    body: { name: `By ${provider}`.slice(0, 12) },
  });
  assert.equal(created.status, 201);
  const { agentId, characterId } = await created.json();
  const state = async () => (await request(server, `/api/agents/${agentId}/state`, { token: owner })).json();
  await waitForAsync(async () => (await state()).online, "the agent in the world");
  const [listing] = await matchMaker.query({ name: "world" });
  const world = (matchMaker.getLocalRoomById(listing!.roomId) as unknown as { world: World }).world;
  const tree = server.runtime.gameData.areas[0]!.resources.find((r) => r.resourceId === "tree")!;
  const beside: Tile = [
    { x: tree.x + 1, z: tree.z },
    { x: tree.x - 1, z: tree.z },
    { x: tree.x, z: tree.z + 1 },
    { x: tree.x, z: tree.z - 1 },
  ].find((t) => world.submit(characterId, { type: "teleport", ...t }) === undefined)!;
  assert.ok(beside, "a tile beside a tree");
  const setGoal = () =>
    request(server, `/api/agents/${agentId}/goal`, {
      token: owner,
      body: { type: "woodcutting", target: 5000 },
    });
  assert.equal((await setGoal()).status, 200);
  const xp = async () => (await state()).skills.woodcutting.xp as number;
  const stop = async () => {
    await server.stop();
    await stub.close();
  };
  return { stub, server, owner, agentId, characterId, state, xp, setGoal, lines, stop, world, beside };
}

/**
 * Once the model drives the agent, has it ask the model again, whose answer never comes: how many
 * requests the stub had before that one.
 */
async function callLeftHanging(run: Awaited<ReturnType<typeof drivenAgent>>): Promise<number> {
  await waitForAsync(async () => (await run.xp()) > 0, "the model driving");
  run.stub.mode = { kind: "never" };
  const asked = run.stub.requests.length;
  await run.setGoal();
  await waitForAsync(async () => run.stub.requests.length > asked, "the model asked");
  return asked;
}

/** No log line, state body or list carries the key. */
async function assertKeyKept(lines: LogLine[], ...bodies: unknown[]) {
  assert.ok(!JSON.stringify(lines).includes(KEY), "the key is in the log");
  for (const body of bodies) assert.ok(!JSON.stringify(body).includes(KEY), "the key is in a response");
}

describe("language-model planner: stub providers on loopback drive an agent", function () {
  this.timeout(180000);

  for (const provider of ["openai", "anthropic", "google", "local"] as const) {
    it(`${provider}: a scripted model chooses chopTree, and the agent chops and gains XP`, async () => {
      const run = await drivenAgent(provider);
      try {
        await waitForAsync(
          async () => (await run.xp()) > 0,
          "woodcutting XP from the model's chopTree",
          60000,
        );
        const body = await run.state();
        const label = `${provider}:${envFor(provider, run.stub).AGENT_MODEL!.split(":")[1]}`;
        assert.equal(body.planner, label);
        const metrics = await (await fetch(`${run.server.baseUrl}/metrics`)).text();
        assert.match(
          metrics,
          new RegExp(`^tileworld_agent_decisions_total\\{planner="${label}"\\} [1-9]`, "m"),
          "the model's decisions counted under its planner",
        );
        const [first] = run.stub.requests;
        assert.ok(first, "the model was asked");
        assert.deepEqual(
          offeredTools(first).sort(),
          [...ACTION_NAMES].sort(),
          "all 22 actions offered as tools",
        );
        assert.match(first.body, /gameState/);
        assert.match(first.body, /availableActions/);
        assert.match(first.body, /woodcutting/);
        // The key went to the provider, and nowhere else.
        if (provider !== "local")
          assert.ok(JSON.stringify(first.headers).includes(KEY), "the key sent to the provider");
        await assertKeyKept(
          run.lines,
          body,
          await (await request(run.server, "/api/agents", { token: run.owner })).json(),
        );
      } finally {
        await run.stop();
      }
    });
  }

  it("falls back to the rules for a decision the model fails (timeout, malformed, unknown tool, 429), and says so", async () => {
    const run = await drivenAgent("openai");
    try {
      await waitForAsync(
        async () => (await run.state()).planner === "openai:gpt-test" && (await run.xp()) > 0,
        "the model driving",
      );
      const first = run.stub.requests[0]!;
      assert.equal(first.json.max_tokens, 300, "tokens per call bounded");
      const failures = [
        { mode: { kind: "slow", ms: 5000 } as const, reason: /did not answer within 1000 ms/ },
        { mode: { kind: "malformed" } as const, reason: /answer could not be read/ },
        { mode: { kind: "tool", name: "castFireball" } as const, reason: /unknown action "castFireball"/ },
        // A parameter its tool does not take (the tools offered allow no others): not carried out.
        {
          mode: { kind: "tool", name: "idle", input: { until: "dawn" } } as const,
          reason: /idle parameters that do not fit/,
        },
        // A broken gateway's endless answer is read no further than the cap.
        { mode: { kind: "huge", bytes: 4 * 2 ** 20 } as const, reason: /larger than 256 kB/ },
        // Last: the provider is then waited out (see the next test).
        { mode: { kind: "status", status: 429 } as const, reason: /rate limiting \(429\)/ },
      ];
      for (const { mode, reason } of failures) {
        run.stub.mode = mode;
        const asked = run.stub.requests.length;
        const before = await run.xp();
        // A new goal ends what is under way: the next decision is the model's again.
        await run.setGoal();
        await waitForAsync(async () => run.stub.requests.length > asked, `the model asked (${mode.kind})`);
        await waitForAsync(
          async () =>
            run.lines.some(
              (line) => line.msg.includes("fell back to the rules") && reason.test(String(line.reason)),
            ),
          `the fallback logged: ${reason}`,
        );
        await waitForAsync(
          async () => (await run.state()).planner === "rules",
          "the state says the rules decided",
        );
        // The rules' decision for this goal: chop on.
        await waitForAsync(async () => (await run.xp()) > before, "the rules chop on", 60000);
      }
      await assertKeyKept(run.lines, await run.state());
    } finally {
      await run.stop();
    }
  });

  for (const provider of ["openai", "anthropic"] as const)
    it(`${provider}: waits out the Retry-After of a 429 before asking again, the rules deciding meanwhile`, async () => {
      const run = await drivenAgent(provider);
      try {
        await waitForAsync(async () => run.stub.requests.length >= 1, "the model asked");
        run.stub.mode = { kind: "status", status: 429, retryAfter: "3" };
        const asked = run.stub.requests.length;
        await run.setGoal();
        await waitForAsync(async () => run.stub.requests.length > asked, "the model asked (answered 429)");
        // Read by the agent, not only sent: a decision given up before its answer came learns of no wait.
        await waitForAsync(
          async () =>
            run.lines.some(
              (line) => line.msg.includes("fell back to the rules") && /\(429\)/.test(String(line.reason)),
            ),
          "the 429 read",
        );
        const told = run.stub.requests.length;
        const limited = Date.now();
        run.stub.mode = { kind: "tool", name: "chopTree" };
        // Decisions that would ask the model, all within the 3 s it was told to wait.
        for (let i = 0; i < 3; i++) {
          await run.setGoal();
          await sleep(400);
        }
        assert.ok(Date.now() - limited < 3000, "the decisions came within the wait");
        assert.equal(run.stub.requests.length, told, "no request within the provider's Retry-After");
        assert.equal((await run.state()).planner, "rules", "the rules decide meanwhile");
        await sleep(Math.max(0, limited + 3100 - Date.now()));
        await run.setGoal();
        await waitForAsync(
          async () => run.stub.requests.length > told,
          "the model asked once the wait is over",
        );
      } finally {
        await run.stop();
      }
    });

  it("bounds the calls a minute per agent: past them, the rules decide", async () => {
    const run = await drivenAgent("local", { AGENT_MODEL_CALLS_PER_MIN: "2" });
    try {
      await waitForAsync(async () => run.stub.requests.length >= 1, "the model asked");
      // Each new goal has the agent think again; a slow process may take more than a few to ask again.
      await waitForAsync(async () => {
        await run.setGoal();
        await sleep(500);
        return run.stub.requests.length >= 2;
      }, "the model asked a second time");
      for (let i = 0; i < 3; i++) {
        await run.setGoal();
        await sleep(500);
      }
      await waitForAsync(
        async () => (await run.state()).planner === "rules",
        "the rules deciding past the bound",
      );
      await sleep(2000);
      assert.equal(run.stub.requests.length, 2, "2 calls in the minute, no more");
    } finally {
      await run.stop();
    }
  });

  it("carries out no answer that comes after its owner stopped the goals", async () => {
    const run = await drivenAgent("openai", { AGENT_MODEL_TIMEOUT_MS: "10000" });
    try {
      await waitForAsync(async () => (await run.xp()) > 0, "the model driving");
      run.stub.mode = { kind: "late", ms: 1500, name: "chopTree" };
      const stop = () =>
        request(run.server, `/api/agents/${run.agentId}/goal/stop`, { token: run.owner, body: {} });
      const asked = run.stub.requests.length;
      // A new goal: the model is asked, and the goals stopped while it thinks.
      await run.setGoal();
      await waitForAsync(async () => run.stub.requests.length > asked, "the model asked");
      assert.equal((await stop()).status, 200);
      const xpAtStop = await run.xp();
      const seen = new Set<string>();
      for (const until = Date.now() + 3000; Date.now() < until; await sleep(100)) {
        const { currentAction } = await run.state();
        if (currentAction !== null) seen.add(currentAction);
      }
      assert.deepEqual({ actions: [...seen], xp: await run.xp() }, { actions: [], xp: xpAtStop });
      assert.equal(run.stub.abandoned, 1, "the request cut when the goals stopped");
    } finally {
      await run.stop();
    }
  });

  it("cuts its model request when the agent is deleted", async () => {
    const run = await drivenAgent("google", { AGENT_MODEL_TIMEOUT_MS: "15000" });
    try {
      await callLeftHanging(run);
      const deleted = await request(run.server, `/api/agents/${run.agentId}`, {
        token: run.owner,
        method: "DELETE",
      });
      assert.equal(deleted.status, 204);
      // Not left running for its 15 s (a provider bills what it goes on writing).
      await waitForAsync(async () => run.stub.abandoned === 1, "the request cut", 3000);
    } finally {
      await run.stop();
    }
  });

  it("decides again after its owner's walk, though the model fails: the rules bank and chop on", async () => {
    const run = await drivenAgent("openai");
    try {
      await waitForAsync(async () => run.stub.requests.length >= 1, "the model asked");
      run.stub.mode = { kind: "status", status: 500 };
      const act = async (name: string, params: unknown) =>
        (
          await request(run.server, `/api/agents/${run.agentId}/actions/${name}`, {
            token: run.owner,
            body: params,
          })
        ).json();
      // A walk of its owner's, away from the tree, that ends before the agent gets there.
      const away = [6, -6].flatMap((d) => [
        { x: run.beside.x + d, z: run.beside.z },
        { x: run.beside.x, z: run.beside.z + d },
      ]);
      let walked = false;
      for (const tile of away) if (!walked) walked = (await act("moveTo", tile)).ok === true;
      assert.ok(walked, "a walk away from the tree");
      assert.deepEqual(await act("stopMovement", {}), { ok: true });
      // A full inventory: the rules walk to the bank (a walk of their own, which ends there), bank, and chop.
      assert.equal(
        run.world.submit(run.characterId, { type: "give", itemId: "logs", quantity: 28 }),
        undefined,
      );
      const before = await run.xp();
      await waitForAsync(async () => (await run.xp()) > before, "the rules chop again after banking", 30000);
    } finally {
      await run.stop();
    }
  });

  it("keeps the owner's message for the next call when the model cannot be asked", async () => {
    const run = await drivenAgent("openai");
    try {
      await waitForAsync(async () => run.stub.requests.length >= 1, "the model asked");
      run.stub.mode = { kind: "status", status: 500 };
      const failed = run.stub.requests.length;
      const sent = await request(run.server, `/api/agents/${run.agentId}/message`, {
        token: run.owner,
        body: { text: "Chop the oak" },
      });
      assert.equal(sent.status, 202);
      await waitForAsync(
        async () => run.stub.requests.slice(failed).some((r) => r.body.includes("Chop the oak")),
        "the instruction in a request that fails",
      );
      run.stub.mode = { kind: "tool", name: "chopTree" };
      const answered = run.stub.requests.length;
      await waitForAsync(
        async () => run.stub.requests.slice(answered).some((r) => r.body.includes("Chop the oak")),
        "the instruction asked again",
      );
    } finally {
      await run.stop();
    }
  });

  it("keeps the owner's message for the next call when a new goal cuts the call carrying it", async () => {
    const run = await drivenAgent("openai", { AGENT_MODEL_TIMEOUT_MS: "15000" });
    try {
      await waitForAsync(async () => (await run.xp()) > 0, "the model driving");
      run.stub.mode = { kind: "never" };
      const asked = run.stub.requests.length;
      const sent = await request(run.server, `/api/agents/${run.agentId}/message`, {
        token: run.owner,
        body: { text: "Chop the oak" },
      });
      assert.equal(sent.status, 202);
      await waitForAsync(
        async () => run.stub.requests.slice(asked).some((r) => r.body.includes("Chop the oak")),
        "the instruction in a request left hanging",
      );
      run.stub.mode = { kind: "tool", name: "chopTree" };
      const cut = run.stub.requests.length;
      assert.equal((await run.setGoal()).status, 200);
      await waitForAsync(async () => run.stub.abandoned === 1, "the request cut by the new goal");
      await waitForAsync(
        async () => run.stub.requests.slice(cut).some((r) => r.body.includes("Chop the oak")),
        "the instruction asked again",
      );
    } finally {
      await run.stop();
    }
  });

  it("passes the owner's message to the model as an instruction, and says its reply in chat", async () => {
    const run = await drivenAgent("anthropic");
    try {
      // A player beside the agent hears what it says.
      const listener = await joinAsNewPlayer(run.server);
      assert.equal(run.world.submit(listener.id, { type: "teleport", ...run.beside }), undefined);
      await waitForAsync(async () => run.stub.requests.length >= 1, "the model asked");
      run.stub.mode = { kind: "tool", name: "idle", text: "Resting now, as you asked." };
      const asked = run.stub.requests.length;
      const sent = await request(run.server, `/api/agents/${run.agentId}/message`, {
        token: run.owner,
        body: { text: "Please take a rest" },
      });
      assert.equal(sent.status, 202);
      await waitForAsync(
        async () => run.stub.requests.slice(asked).some((r) => r.body.includes("Please take a rest")),
        "the instruction in a request",
      );
      await waitForAsync(
        async () => (await run.state()).goal?.type === "idle",
        "the model's idle carried out",
      );
      await listener.inbox.next(
        "chat:message",
        (m: { message: string }) => m.message === "Resting now, as you asked.",
        10000,
        true,
      );
      await leave(listener.room);
    } finally {
      await run.stop();
    }
  });

  it("says nothing its owner did not ask for: words alone, unasked, leave the decision to the rules", async () => {
    const run = await drivenAgent("openai");
    try {
      const listener = await joinAsNewPlayer(run.server);
      assert.equal(run.world.submit(listener.id, { type: "teleport", ...run.beside }), undefined);
      await waitForAsync(async () => run.stub.requests.length >= 1, "the model asked");
      run.stub.mode = { kind: "words", text: "I think I will chop a tree." };
      const asked = run.stub.requests.length;
      const before = await run.xp();
      // A new goal ends what is under way: the next decision is the model's again.
      await run.setGoal();
      await waitForAsync(async () => run.stub.requests.length > asked, "the model asked");
      await waitForAsync(
        async () => (await run.state()).plannerReason === "the model answered in words, not with an action",
        "the rules deciding, saying why",
      );
      await waitForAsync(async () => (await run.xp()) > before, "the rules chop on", 60000);
      const said = listener.inbox.received.filter(({ event }) => event === "chat:message");
      assert.deepEqual(said, [], "the unasked words are not said in chat");
      await leave(listener.room);
    } finally {
      await run.stop();
    }
  });

  it("hears its owner while a follow it was told runs, and says a reply of several lines as one", async () => {
    const run = await drivenAgent("openai");
    try {
      const friend = await joinAsNewPlayer(run.server);
      assert.equal(run.world.submit(friend.id, { type: "teleport", ...run.beside }), undefined);
      run.stub.mode = { kind: "tool", name: "followEntity", input: { entityId: friend.id } };
      await waitForAsync(async () => (await run.state()).currentAction === "followEntity", "following");
      // A follow never ends by itself: the owner's word must reach the model all the same.
      run.stub.mode = { kind: "tool", name: "stopMovement", text: "Stopping.\n\nI will wait here." };
      const asked = run.stub.requests.length;
      const sent = await request(run.server, `/api/agents/${run.agentId}/message`, {
        token: run.owner,
        body: { text: "Stop following and wait" },
      });
      assert.equal(sent.status, 202);
      await waitForAsync(
        async () => run.stub.requests.slice(asked).some((r) => r.body.includes("Stop following and wait")),
        "the instruction in a request while following",
        10000,
      );
      await friend.inbox.next(
        "chat:message",
        (m: { message: string }) => m.message === "Stopping. I will wait here.",
        10000,
        true,
      );
      await leave(friend.room);
    } finally {
      await run.stop();
    }
  });

  it("tells the model why its last answer was not carried out, and what its provider said was wrong", async () => {
    const run = await drivenAgent("openai");
    try {
      run.stub.mode = { kind: "tool", name: "moveTo", input: { x: "north" } };
      const asked = run.stub.requests.length;
      await waitForAsync(
        async () =>
          run.stub.requests
            .slice(asked)
            .some((r) =>
              /your last answer: not carried out: the model gave moveTo parameters that do not fit \(x: /.test(
                r.body,
              ),
            ),
        "the refusal's reason in a later request",
      );
      run.stub.mode = { kind: "status", status: 404 };
      await waitForAsync(
        async () =>
          run.lines.some((line) => /the model's provider answered 404: .+/.test(String(line.reason))),
        "the provider's reason logged",
      );
      // Its owner reads why the rules decide: the refusal, or the provider's rest after it.
      await waitForAsync(
        async () =>
          /^the model's provider (answered 404: |is not asked for )/.test(
            (await run.state()).plannerReason ?? "",
          ),
        "the reason in the agent's state",
      );
      assert.equal((await run.state()).planner, "rules");
    } finally {
      await run.stop();
    }
  });

  it("shows the model the nearest entities of each kind, not a heap of items that would run up its cost", async () => {
    const run = await drivenAgent("openai");
    try {
      run.stub.mode = { kind: "tool", name: "idle" };
      assert.equal(
        run.world.submit(run.characterId, { type: "give", itemId: "logs", quantity: 20 }),
        undefined,
      );
      await waitForAsync(async () => (await run.state()).inventory.items.length >= 20, "the logs given");
      const slots = (await run.state()).inventory.items
        .filter((entry: { itemId: string }) => entry.itemId === "logs")
        .map((entry: { slot: number }) => entry.slot);
      for (const slot of slots)
        run.world.submit(run.characterId, { type: "action", action: "drop", inventorySlot: slot });
      await waitForAsync(
        async () =>
          (await run.state()).nearbyEntities.filter((e: { kind: string }) => e.kind === "item").length >= 20,
        "the logs on the ground, all listed by the state endpoint",
      );
      const asked = run.stub.requests.length;
      await waitForAsync(async () => run.stub.requests.length > asked, "the model asked again", 10000);
      const prompt = run.stub.requests.at(-1)!.body;
      const state = JSON.parse(
        JSON.parse(prompt)
          .messages.at(-1)
          .content.match(/State:\n(.*)/)[1],
      );
      const items = state.nearbyEntities.filter((e: { kind: string }) => e.kind === "item");
      assert.equal(items.length, 10, "the nearest 10 items");
      assert.ok(state.fartherEntitiesNotListed >= 10, JSON.stringify(state.fartherEntitiesNotListed));
    } finally {
      await run.stop();
    }
  });

  it("eats when low in a fight while its model's answer is still to come", async () => {
    const run = await drivenAgent("local", { AGENT_MODEL_TIMEOUT_MS: "20000" });
    try {
      const asked = await callLeftHanging(run);
      run.world.replaceInventory(run.characterId, [
        { slot: 0, itemId: "bronze_sword", quantity: 1 },
        { slot: 1, itemId: "bread", quantity: 1 },
      ]);
      // Beside a scorpion in the mines (no safe zone: a death there drops everything), which a new
      // character cannot beat; the agent waits on its model meanwhile, for up to 20 s.
      assert.equal(run.world.submit(run.characterId, { type: "teleport", x: 47, z: 110 }), undefined);
      await waitForAsync(
        async () => (await run.state()).gameState.inCombat,
        "the scorpion attacking",
        30_000,
      );
      const live = (run.world as unknown as Internals).state;
      live.setHealth(live.players.get(run.characterId), 3);
      const holds = (held: { inventory: { items: { itemId: string }[] } }, itemId: string) =>
        held.inventory.items.some((entry) => entry.itemId === itemId);
      await waitForAsync(async () => !holds(await run.state(), "bread"), "the bread eaten", 10_000);
      assert.ok(holds(await run.state(), "bronze_sword"), "it ate rather than died");
      assert.equal(run.stub.abandoned, 0, "the model's answer still awaited");
      assert.equal(run.stub.requests.length, asked + 1, "and no other call made");
    } finally {
      await run.stop();
    }
  });
});
