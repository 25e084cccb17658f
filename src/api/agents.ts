// /api/agents: the dashboard's view and control of the server's agents. Any signed-in account reads;
// only an agent's owner (or an admin, for the agents the configuration starts) changes one.
import { type RequestHandler, type Response, Router } from "express";
import { z } from "zod";
import type { Agent } from "../agents/agent.js";
import { isQuickAction } from "../agents/agent.js";
import { availableGoals, GOAL_TYPES } from "../agents/brain.js";
import { AgentLimitError } from "../agents/manager.js";
import { CHARACTER_NAME } from "../auth/accounts.js";
import { NameTakenError } from "../db/characters.js";
import type { Runtime } from "../runtime.js";
import { callerOf } from "./authenticate.js";
import { ApiError } from "./errors.js";
import { parseOr400 } from "./validate.js";

const newAgent = z.object({
  name: z
    .string()
    .regex(CHARACTER_NAME, "3 to 12 letters, digits or spaces, not starting or ending with a space"),
});
const newGoal = z.object({
  type: z.enum(GOAL_TYPES),
  /** XP to gain in the goal's skills. */
  target: z.number().int().positive().max(200_000_000).optional(),
});
const message = z.object({ text: z.string().min(1).max(200) });

export function agentsRouter(runtime: Runtime, authenticated: RequestHandler): Router {
  const router = Router();
  const { agents } = runtime;

  const found = (id: string): Agent => {
    const agent = agents.get(id);
    if (!agent) throw new ApiError(404, "not_found", `no agent ${id}`);
    return agent;
  };
  /** The agent, if the caller may control it. */
  const controlled = (id: string, res: Response): Agent => {
    const agent = found(id);
    const { account } = callerOf(res);
    const allowed =
      agent.record.ownerAccountId === null ? account.isAdmin : agent.record.ownerAccountId === account.id;
    if (!allowed)
      throw new ApiError(
        403,
        "forbidden",
        agent.record.ownerAccountId === null
          ? "only an admin account controls the server's own agents"
          : "only the agent's owner controls it",
      );
    return agent;
  };
  const goalState = (agent: Agent) => ({
    goal: agent.goal(),
    goalsPaused: agent.record.goalsPaused,
    availableGoals: availableGoals(),
  });
  const summary = (agent: Agent) => ({
    agentId: agent.record.id,
    characterId: agent.record.characterId,
    name: agent.record.name,
  });

  router.get("/agents", authenticated, (_req, res) => {
    res.json({ agents: agents.list().map((agent) => ({ ...summary(agent), online: agent.online })) });
  });

  router.post("/agents", authenticated, async (req, res) => {
    const { name } = parseOr400(newAgent, req.body);
    try {
      const agent = await agents.create(callerOf(res).account.id, name);
      res.status(201).json(summary(agent));
    } catch (error) {
      if (error instanceof NameTakenError || error instanceof AgentLimitError)
        throw new ApiError(409, "conflict", error.message);
      throw error;
    }
  });

  router.delete("/agents/:agentId", authenticated, async (req, res) => {
    await agents.remove(controlled(req.params.agentId as string, res));
    res.status(204).end();
  });

  router.get("/agents/mapping/:agentId", authenticated, (req, res) => {
    res.json(summary(found(req.params.agentId as string)));
  });

  router.get("/agents/:agentId/goal", authenticated, (req, res) => {
    res.json(goalState(found(req.params.agentId as string)));
  });

  router.post("/agents/:agentId/goal", authenticated, async (req, res) => {
    const agent = controlled(req.params.agentId as string, res);
    const { type, target } = parseOr400(newGoal, req.body);
    await agent.setGoal(type, target);
    res.json({ success: true, ...goalState(agent) });
  });

  router.post("/agents/:agentId/goal/stop", authenticated, async (req, res) => {
    const agent = controlled(req.params.agentId as string, res);
    await agent.pauseGoals();
    res.json({ success: true, ...goalState(agent) });
  });

  router.post("/agents/:agentId/goal/resume", authenticated, async (req, res) => {
    const agent = controlled(req.params.agentId as string, res);
    await agent.resumeGoals();
    res.json({ success: true, ...goalState(agent) });
  });

  router.post("/agents/:agentId/message", authenticated, async (req, res) => {
    const agent = controlled(req.params.agentId as string, res);
    const { text } = parseOr400(message, req.body);
    await agent.message(text);
    res.status(202).json({ accepted: true });
  });

  router.get("/agents/:agentId/quick-actions", authenticated, (req, res) => {
    res.json({ actions: found(req.params.agentId as string).quickActions() });
  });

  router.post("/agents/:agentId/quick-actions/:actionId", authenticated, async (req, res) => {
    const agent = controlled(req.params.agentId as string, res);
    const actionId = req.params.actionId as string;
    if (!isQuickAction(actionId)) throw new ApiError(404, "not_found", `no quick action ${actionId}`);
    await agent.runQuickAction(actionId);
    res.status(202).json({ accepted: true });
  });

  return router;
}
