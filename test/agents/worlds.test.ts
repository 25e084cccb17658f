import assert from "node:assert/strict";
import { type AgentReply, type AgentRequest, answerInWorlds } from "../../src/agents/requests.js";

/** Each world's answer to a request, as its process would give it (a rejection: it could not be asked). */
type WorldAnswers = Record<number, AgentReply | Error>;

async function ask(answers: WorldAnswers, request: AgentRequest, running = Object.keys(answers).map(Number)) {
  const asked: number[] = [];
  const reply = await answerInWorlds(
    request,
    async () => running,
    async (world) => {
      asked.push(world);
      const answer = answers[world];
      if (answer === undefined) throw new Error(`world ${world} was not to be asked`);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  );
  return { reply, asked };
}

const notHere: AgentReply = { ok: false, code: "not_found", message: "no agent a1" };
const caller = { accountId: "acc", isAdmin: false, address: "10.0.0.1", mutedUntil: null };

describe("agent requests over numbered worlds (answerInWorlds)", () => {
  it("makes a new agent in the world it names, asking no other", async () => {
    const made: AgentReply = { ok: true, body: { agentId: "a1" } };
    const { reply, asked } = await ask(
      { 1: new Error("not asked"), 2: made },
      {
        type: "create",
        caller,
        name: "Rover",
        world: 2,
      },
    );
    assert.deepEqual(reply, made);
    assert.deepEqual(asked, [2]);
  });

  it("lists every running world's agents, in the order of the worlds", async () => {
    const { reply } = await ask(
      {
        1: { ok: true, body: { agents: [{ agentId: "a1", world: 1 }] } },
        2: { ok: true, body: { agents: [] } },
        3: { ok: true, body: { agents: [{ agentId: "a3", world: 3 }] } },
      },
      { type: "list", caller },
    );
    assert.deepEqual(reply, {
      ok: true,
      body: {
        agents: [
          { agentId: "a1", world: 1 },
          { agentId: "a3", world: 3 },
        ],
      },
    });
  });

  it("lists the worlds that answer, naming those that could not, rather than fail the whole list", async () => {
    const refused: AgentReply = { ok: false, code: "unavailable", message: "shutting down" };
    const { reply } = await ask(
      {
        1: { ok: true, body: { agents: [{ agentId: "a1", world: 1 }] } },
        2: refused,
        3: new Error("the world's server process cannot be reached"),
      },
      { type: "list", caller },
    );
    assert.deepEqual(reply, {
      ok: true,
      body: { agents: [{ agentId: "a1", world: 1 }], unavailableWorlds: [2, 3] },
    });
  });

  it("fails a list as the first world failed when no world answers", async () => {
    const refused: AgentReply = { ok: false, code: "unavailable", message: "shutting down" };
    const { reply } = await ask({ 1: refused, 2: refused }, { type: "list", caller });
    assert.deepEqual(reply, refused);
    const unreachable = new Error("the world's server process cannot be reached");
    await assert.rejects(
      ask({ 1: unreachable, 2: refused }, { type: "list", caller }),
      (error) => error === unreachable,
    );
  });

  it("answers a request about one agent from the world it plays in", async () => {
    const state: AgentReply = { ok: true, body: { agentId: "a1", online: true } };
    const { reply, asked } = await ask(
      { 1: notHere, 2: state, 3: notHere },
      { type: "state", agentId: "a1" },
    );
    assert.deepEqual(reply, state);
    assert.deepEqual(asked.sort(), [1, 2, 3], "every running world is asked");
  });

  it("passes on the refusal of the agent's world rather than the others' not_found", async () => {
    const forbidden: AgentReply = { ok: false, code: "forbidden", message: "only the agent's owner" };
    const { reply } = await ask({ 1: notHere, 2: forbidden }, { type: "delete", caller, agentId: "a1" });
    assert.deepEqual(reply, forbidden);
  });

  it("is not_found when no world knows the agent", async () => {
    const { reply } = await ask({ 1: notHere, 2: notHere }, { type: "goal", agentId: "a9" });
    assert.deepEqual(reply, { ok: false, code: "not_found", message: "no agent a9" });
  });

  it("fails as the world that could not be asked failed, since the agent may play there", async () => {
    const unreachable = new Error("the world's server process cannot be reached");
    await assert.rejects(
      ask({ 1: notHere, 2: unreachable }, { type: "mapping", agentId: "a1" }),
      (error) => error === unreachable,
    );
    // Found elsewhere, the world that could not be asked does not matter.
    const found: AgentReply = { ok: true, body: { agentId: "a1" } };
    const { reply } = await ask({ 1: found, 2: unreachable }, { type: "mapping", agentId: "a1" });
    assert.deepEqual(reply, found);
  });
});
