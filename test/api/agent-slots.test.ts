import assert from "node:assert/strict";
import { joinAsNewPlayer, leave, type SdkPlayer, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

const ADMIN_CODE = "slots-admin-code";
const ABSENCE_SECONDS = 3;

interface AgentSummary {
  agentId: string;
  characterId: string;
  name: string;
}

describe("/api/agents: slots nobody can hold for good", function () {
  this.timeout(120000);

  describe("owners, admins and client addresses", () => {
    let server: TestServer;
    const players: SdkPlayer[] = [];
    before(async () => {
      server = await startTestServer({
        ...GENEROUS_LIMITS,
        WORLD_TICK_MS: "100",
        ADMIN_CODE,
        AGENTS_PER_ACCOUNT: "2",
        AGENTS_PER_ADDRESS: "3",
        AGENT_OWNER_ABSENCE_SECONDS: String(ABSENCE_SECONDS),
      });
    });
    afterEach(async () => {
      await Promise.all(players.splice(0).map((player) => leave(player.room)));
    });
    after(() => server?.stop());

    const post = (path: string, token: string, body: unknown = {}) =>
      request(server, path, { method: "POST", body, token });
    const listed = async (token: string): Promise<AgentSummary[]> => {
      const response = await request(server, "/api/agents", { token });
      assert.equal(response.status, 200);
      return (await response.json()).agents;
    };
    async function newAgent(name: string, token: string): Promise<AgentSummary> {
      const response = await post("/api/agents", token, { name });
      assert.equal(response.status, 201, await response.clone().text());
      return response.json();
    }
    /** An anonymous account whose player stays in the world: seen for as long as it does. */
    async function present(): Promise<string> {
      const { token } = await signInAnonymously(server);
      players.push(await joinAsNewPlayer(server, token));
      return token;
    }

    it("lets an admin account stop and delete any account's agent", async () => {
      const owner = await present();
      const agent = await newAgent("Squatter", owner);
      const admin = await present();
      const adminPlayer = players.at(-1)!;
      await expectError(await post(`/api/agents/${agent.agentId}/goal/stop`, admin), 403, "forbidden");
      adminPlayer.room.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
      await adminPlayer.inbox.next("chat:message", (m) => m.fromPlayerId === "server");

      const stopped = await post(`/api/agents/${agent.agentId}/goal/stop`, admin);
      assert.equal(stopped.status, 200);
      assert.equal((await stopped.json()).goalsPaused, true);
      const deleted = await request(server, `/api/agents/${agent.agentId}`, {
        method: "DELETE",
        token: admin,
      });
      assert.equal(deleted.status, 204);
      assert.ok(!(await listed(admin)).some((a) => a.agentId === agent.agentId));
    });

    it("refuses agent names with runs of spaces, as it does characters' names", async () => {
      const token = await present();
      for (const name of ["Mod  Bob", "Mod Bob ", " Mod Bob"]) {
        const error = await expectError(await post("/api/agents", token, { name }), 400, "bad_request");
        assert.deepEqual(
          error.details?.map((detail) => detail.field),
          ["name"],
        );
      }
      assert.ok(!(await listed(token)).some((a) => a.name.startsWith("Mod")), "nothing was made");
    });

    it("counts agents per client address, and frees the slots of anonymous owners not seen for a while", async () => {
      // One owner stays in the world; two others sign in, start agents and go.
      const kept = await present();
      const keptAgent = await newAgent("Keeper", kept);
      const first = (await signInAnonymously(server)).token;
      const second = (await signInAnonymously(server)).token;
      const gone = [await newAgent("Drifter A", first), await newAgent("Drifter B", second)];
      // Each account may run 2, but this address has started 3: throwaway accounts do not add slots.
      const refused = await expectError(
        await post("/api/agents", second, { name: "Drifter C" }),
        409,
        "conflict",
      );
      assert.match(refused.message, /client address/);

      // The absent owners' agents are removed once their owners go unseen long enough; the present
      // owner's stays.
      const watcher = (await signInAnonymously(server)).token;
      await waitForAsync(
        async () => {
          const ids = (await listed(watcher)).map((a) => a.agentId);
          return gone.every((agent) => !ids.includes(agent.agentId));
        },
        "the absent owners' agents are removed",
        ABSENCE_SECONDS * 1000 * 10,
      );
      assert.ok(
        (await listed(watcher)).some((a) => a.agentId === keptAgent.agentId),
        "the kept agent runs",
      );
      // Their slots are free again.
      await newAgent("Drifter C", second);
    });
  });

  describe("chat commands through an agent", () => {
    let server: TestServer;
    before(async () => {
      // A tight authentication budget: /admin guesses spent from the agents' address would exhaust it.
      server = await startTestServer({
        RATE_LIMIT_REST_PER_MIN: "10000",
        RATE_LIMIT_AUTH_PER_MIN: "4",
        WORLD_TICK_MS: "100",
        ADMIN_CODE,
      });
    });
    after(() => server?.stop());

    it("refuses slash commands in an agent's messages and chat, so the server's own address keeps its attempts", async () => {
      const { token } = await signInAnonymously(server);
      const created = await request(server, "/api/agents", {
        method: "POST",
        token,
        body: { name: "Relay" },
      });
      assert.equal(created.status, 201);
      const agent: AgentSummary = await created.json();
      await waitForAsync(async () => {
        const { agents } = await (await request(server, "/api/agents", { token })).json();
        return agents.some(
          (a: { agentId: string; online: boolean }) => a.agentId === agent.agentId && a.online,
        );
      }, "the agent is in the world");
      for (const text of ["/admin guess1", "/admin guess2", "/admin guess3", "/admin guess4", "/heal"]) {
        const error = await expectError(
          await request(server, `/api/agents/${agent.agentId}/message`, {
            method: "POST",
            token,
            body: { text },
          }),
          400,
          "bad_request",
        );
        assert.match(error.details?.[0]?.message ?? "", /chat commands/);
      }
      // Nor through its chatMessage action, the right code included: the agent's account stays a player's.
      for (const message of ["/admin guess5", `/admin ${ADMIN_CODE}`, "/give coins 1000"]) {
        const error = await expectError(
          await request(server, `/api/agents/${agent.agentId}/actions/chatMessage`, {
            method: "POST",
            token,
            body: { message },
          }),
          400,
          "bad_request",
        );
        assert.match(error.details?.[0]?.message ?? "", /chat commands/, `${message} was run`);
      }
      // Loopback (the agents' address, and this client's) may still authenticate: a bad token is 401,
      // not 429, and the right code still makes a loopback player an admin.
      await expectError(
        await request(server, "/api/v1/world", { token: "not-a-token" }),
        401,
        "unauthorized",
      );
      const player = await joinAsNewPlayer(server, token);
      try {
        player.room.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
        const enabled = await player.inbox.next("chat:message", (m) => m.fromPlayerId === "server");
        assert.equal(enabled.message, "Admin commands enabled.");
      } finally {
        await leave(player.room);
      }
    });
  });
});
