// The agent endpoints' work, as plain JSON requests and replies: each agent runs beside its world, and a
// request is carried to the worlds' processes (matchMaker.remoteRoomCall) and answered there.
import { AgentLimitError } from "../db/agents.js";
import { NameTakenError } from "../db/characters.js";
import { WorldSupersededError, type WriteFence } from "../db/world-lease.js";
import type { ActionName } from "./actions/types.js";
import type { Agent, QuickActionId } from "./agent.js";
import { availableGoals, type GoalType } from "./brain.js";
import type { AgentManager } from "./manager.js";
import { agentState, listedAgent } from "./state.js";

/** Who asks, for the requests that change an agent. */
export interface AgentCaller {
  accountId: string;
  isAdmin: boolean;
  /** The client's address (its rate-limit key): agents are counted per address too. */
  address: string;
  /** Until when (epoch milliseconds) an admin muted the account, or null: its agents do not speak for it. */
  mutedUntil: number | null;
}

export type AgentRequest =
  | { type: "list"; caller: AgentCaller }
  | { type: "mapping" | "goal" | "quickActions"; agentId: string }
  /** `world`: the numbered world the new agent plays in. */
  | { type: "create"; caller: AgentCaller; name: string; world: number }
  /** "control": whether the caller may control the agent (an empty body), asked before refusing its input. */
  | { type: "control" | "delete" | "pauseGoals" | "resumeGoals"; caller: AgentCaller; agentId: string }
  | { type: "setGoal"; caller: AgentCaller; agentId: string; goal: GoalType; target?: number }
  | { type: "message"; caller: AgentCaller; agentId: string; text: string }
  | { type: "runQuickAction"; caller: AgentCaller; agentId: string; actionId: QuickActionId }
  | { type: "state"; agentId: string }
  /** `params` validated against the action's schema by the API. */
  | { type: "action"; caller: AgentCaller; agentId: string; name: ActionName; params: unknown };

/** The protocol's error codes an agent request can end with; the API gives each its status. */
export type AgentFailureCode = "not_found" | "forbidden" | "conflict" | "unavailable";

/** The reply's body (the protocol's, for the endpoint that asked), or why the request was refused. */
export type AgentReply = { ok: true; body: unknown } | { ok: false; code: AgentFailureCode; message: string };

/**
 * A request of the agent endpoints over several worlds, each answering for its own agents (`ask`): a new
 * agent is made in its world; a list joins those of the worlds whose agents run (`running`, in order),
 * and a request about one agent is answered by the world it plays in, the others not knowing it.
 */
export async function answerInWorlds(
  request: AgentRequest,
  running: () => Promise<readonly number[]>,
  ask: (world: number, request: AgentRequest) => Promise<AgentReply>,
): Promise<AgentReply> {
  if (request.type === "create") return ask(request.world, request);
  const worlds = await running();
  if (request.type === "list") return joinedLists(worlds, (world) => ask(world, request));
  const replies = await Promise.allSettled(worlds.map((world) => ask(world, request)));
  const answers = replies.flatMap((reply) => (reply.status === "fulfilled" ? [reply.value] : []));
  const answer = answers.find((reply) => reply.ok || reply.code !== "not_found");
  if (answer) return answer;
  // Its world may be the one that could not be asked.
  const failure = replies.find((reply) => reply.status === "rejected");
  if (failure) throw failure.reason;
  return { ok: false, code: "not_found", message: `no agent ${request.agentId}` };
}

/**
 * Every world's agents, in the order of the worlds. A world that cannot answer (its process gone, its
 * world moving) leaves its agents out, named in `unavailableWorlds`, rather than hide every other
 * world's; when no world answers, the list fails as the first world did.
 */
async function joinedLists(
  worlds: readonly number[],
  ask: (world: number) => Promise<AgentReply>,
): Promise<AgentReply> {
  const replies = await Promise.allSettled(worlds.map(ask));
  const agents: unknown[] = [];
  const unavailableWorlds: number[] = [];
  replies.forEach((reply, index) => {
    if (reply.status === "fulfilled" && reply.value.ok)
      agents.push(...(reply.value.body as { agents: unknown[] }).agents);
    else unavailableWorlds.push(worlds[index] as number);
  });
  if (unavailableWorlds.length === 0) return { ok: true, body: { agents } };
  if (unavailableWorlds.length < worlds.length) return { ok: true, body: { agents, unavailableWorlds } };
  const first = replies[0] as PromiseSettledResult<AgentReply>;
  if (first.status === "rejected") throw first.reason;
  return first.value;
}

class Refusal extends Error {
  constructor(
    readonly code: AgentFailureCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Answers one request in the process of world `world`, with the agents of that world (loaded first if
 * they are not yet: the world has just opened, or loading them failed) under its lease (`fence`). An
 * agent of another world is not found here.
 */
export async function answerAgentRequest(
  agents: AgentManager,
  world: number,
  fence: WriteFence,
  request: AgentRequest,
): Promise<AgentReply> {
  const closed: AgentReply = {
    ok: false,
    code: "unavailable",
    message: "this server is shutting down; retry in a moment",
  };
  if (agents.isClosed) return closed;
  await agents.host(world, fence);
  // It may have begun to shut down while the agents were loading.
  if (agents.isClosed) return closed;
  try {
    return { ok: true, body: await answer(agents, world, request) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, code: error.code, message: error.message };
    // The request reached a world that another has replaced: the agents it asks for run there now.
    if (error instanceof WorldSupersededError)
      return {
        ok: false,
        code: "unavailable",
        message: "the world is moving to another server; retry shortly",
      };
    if (error instanceof NameTakenError || error instanceof AgentLimitError)
      return { ok: false, code: "conflict", message: error.message };
    throw error;
  }
}

async function answer(agents: AgentManager, world: number, request: AgentRequest): Promise<unknown> {
  const found = (agentId: string) => {
    const agent = agents.get(agentId, world);
    if (!agent) throw new Refusal("not_found", `no agent ${agentId}`);
    return agent;
  };
  switch (request.type) {
    case "list":
      return {
        agents: agents.list(world).map((agent) => ({
          ...summary(agent),
          ...listedAgent(agent),
          controllable: mayControl(agent, request.caller),
        })),
      };
    case "create":
      return summary(
        await agents.create(request.caller.accountId, request.name, {
          ownerAddress: request.caller.address,
          world,
        }),
      );
    case "mapping":
      return summary(found(request.agentId));
    case "goal":
      return goalState(found(request.agentId));
    case "quickActions":
      return { actions: found(request.agentId).commands.quickActions() };
    case "state":
      return agentState(found(request.agentId));
  }
  const agent = controlled(found(request.agentId), request.caller);
  switch (request.type) {
    case "control":
      return {};
    case "delete":
      return agents.remove(agent);
    case "setGoal":
      await agent.setGoal(request.goal, request.target);
      return { success: true, ...goalState(agent) };
    case "pauseGoals":
      await agent.pauseGoals();
      return { success: true, ...goalState(agent) };
    case "resumeGoals":
      await agent.resumeGoals();
      return { success: true, ...goalState(agent) };
    case "message":
      return agent.commands.message(request.text);
    case "runQuickAction": {
      // Refused for the reason the menu shows it unavailable, rather than accepted and not done.
      const { reason } = agent.commands.quickActions().find((action) => action.id === request.actionId)!;
      if (reason) throw new Refusal("conflict", `${request.actionId} cannot be done now: ${reason}`);
      return agent.commands.runQuickAction(request.actionId);
    }
    case "action":
      return agent.act(request.name, request.params);
  }
}

/**
 * The agent, if the caller may control it: its owner, or an admin, who controls every agent (it stops
 * and removes the ones that squat slots); only admins control the agents the configuration starts.
 */
function controlled(agent: Agent, caller: AgentCaller): Agent {
  const owner = agent.record.ownerAccountId;
  if (mayControl(agent, caller)) return agent;
  throw new Refusal(
    "forbidden",
    owner === null
      ? "only an admin account controls the server's own agents"
      : "only the agent's owner (or an admin) controls it",
  );
}

function mayControl(agent: Agent, caller: AgentCaller): boolean {
  return caller.isAdmin || agent.record.ownerAccountId === caller.accountId;
}

function summary(agent: Agent) {
  return { agentId: agent.record.id, characterId: agent.record.characterId, name: agent.record.name };
}

function goalState(agent: Agent) {
  return { goal: agent.goal(), goalsPaused: agent.record.goalsPaused, availableGoals: availableGoals() };
}
