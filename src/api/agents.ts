// /api/agents: the dashboard's view and control of the server's agents. Any signed-in account reads;
// only an agent's owner (or an admin, for the agents the configuration starts) changes one. Each agent
// runs beside its world: a request is answered there (src/agents/requests.ts), whichever process it
// reaches.
import { type RequestHandler, type Response, Router } from "express";
import { z } from "zod";
import { AGENT_ACTIONS } from "../agents/actions/index.js";
import { isActionName } from "../agents/actions/types.js";
import { isQuickAction } from "../agents/agent.js";
import { agentChatText } from "../agents/agent-chat.js";
import { AGENTS_WORLD } from "../agents/agent-connection.js";
import { GOAL_TYPES } from "../agents/brain.js";
import type { AgentCaller, AgentRequest } from "../agents/requests.js";
import { mutedOwnerMessage } from "../game/moderation.js";
import { XP_CAP } from "../game/xp.js";
import { clientKey } from "../limits/rate-limits.js";
import type { LiveWorld } from "../ports/live-world.js";
import { ServiceError } from "../protocol/errors.js";
import { callerOf } from "./authenticate.js";
import { bodyOf, characterNameBody, noBody, parseOr400 } from "./validate.js";

/** A new agent: its character's name, and the numbered world it plays in (1..`worlds`). */
export function agentCreateBody(worlds: number) {
  const which = worlds === 1 ? "there is one world here: world 1" : `the worlds here are 1 to ${worlds}`;
  return characterNameBody.extend({
    world: z
      .number()
      .int()
      .min(1, which)
      .max(worlds, which)
      .optional()
      .describe("the numbered world it plays in (1..WORLDS; world 1 when absent)"),
  });
}

export const agentGoalBody = z.strictObject({
  type: z.enum(GOAL_TYPES),
  /** XP to gain in the goal's skills. */
  target: z.number().int().positive().max(XP_CAP).optional(),
});
// Said in chat unless it is a command (see agentChatLine): held to the chat rule, and refused with its reason.
export const agentMessageBody = z.strictObject({ text: agentChatText });

/** Who the authenticated caller is: its account, as the game server's own routes resolve it. */
function accountCaller(res: Response): AgentCaller {
  const { account } = callerOf(res);
  return {
    accountId: account.id,
    isAdmin: account.isAdmin,
    address: clientKey(res.req.ip),
    mutedUntil: account.mutedUntil?.getTime() ?? null,
  };
}

/**
 * The agent endpoints over whatever answers agent requests: the worlds' processes here, or the agent
 * process's own agents there (src/server/agents-process.ts), which resolves its callers in its own way.
 * `worlds`: how many numbered worlds an agent may play in (WORLDS).
 */
export function agentsRouter(
  liveWorld: Pick<LiveWorld, "agents">,
  authenticated: RequestHandler,
  worlds: number,
  caller: (res: Response) => AgentCaller = accountCaller,
): Router {
  const router = Router();
  const createBody = agentCreateBody(worlds);

  /** The agents' answer to the request, or its refusal. */
  const ask = async (request: AgentRequest) => {
    const reply = await liveWorld.agents(request);
    if (!reply.ok) throw new ServiceError(reply.code, reply.message);
    return reply.body;
  };
  /** Sends the request to the agents and answers with the reply's body and `status`, or its refusal. */
  const answer = async (res: Response, request: AgentRequest, status = 200) => {
    const body = await ask(request);
    if (status === 204) res.status(204).end();
    else res.status(status).json(status === 202 ? { accepted: true } : body);
  };
  const agentId = (params: Record<string, unknown>) => params.agentId as string;
  /**
   * Refuses a request about an agent for what it asks (`refusal`), once the agent is found and the
   * caller may control it: an unknown agent is 404 and another's 403, whatever the request holds.
   */
  const refuseRequest = async (res: Response, id: string, refusal: ServiceError): Promise<never> => {
    await ask({ type: "control", caller: caller(res), agentId: id });
    throw refusal;
  };
  /**
   * Refuses a muted caller's words said through its agent (in the order of refuseRequest): its agents do
   * not speak for it meanwhile.
   */
  const refuseIfMuted = async (res: Response, id: string, owner: AgentCaller): Promise<void> => {
    if (owner.mutedUntil !== null && owner.mutedUntil > Date.now())
      await refuseRequest(res, id, new ServiceError("forbidden", mutedOwnerMessage(owner.mutedUntil)));
  };
  /** The request's input, valid for `schema`, or its refusal (see refuseRequest). */
  const validInput = async <T extends z.ZodType>(
    res: Response,
    id: string,
    schema: T,
    value: unknown,
  ): Promise<z.output<T>> => {
    try {
      return parseOr400(schema, value);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      return refuseRequest(res, id, error);
    }
  };

  router.get("/agents", authenticated, (_req, res) => answer(res, { type: "list", caller: caller(res) }));

  router.post("/agents", authenticated, (req, res) => {
    const { name, world = AGENTS_WORLD } = parseOr400(createBody, req.body);
    return answer(res, { type: "create", caller: caller(res), name, world }, 201);
  });

  router.delete("/agents/:agentId", authenticated, (req, res) =>
    answer(res, { type: "delete", caller: caller(res), agentId: agentId(req.params) }, 204),
  );

  router.get("/agents/mapping/:agentId", authenticated, (req, res) =>
    answer(res, { type: "mapping", agentId: agentId(req.params) }),
  );

  router.get("/agents/:agentId/goal", authenticated, (req, res) =>
    answer(res, { type: "goal", agentId: agentId(req.params) }),
  );

  router.post("/agents/:agentId/goal", authenticated, async (req, res) => {
    const { type, target } = await validInput(res, agentId(req.params), agentGoalBody, req.body);
    return answer(res, {
      type: "setGoal",
      caller: caller(res),
      agentId: agentId(req.params),
      goal: type,
      target,
    });
  });

  router.post("/agents/:agentId/goal/stop", authenticated, async (req, res) => {
    await validInput(res, agentId(req.params), noBody, bodyOf(req));
    return answer(res, { type: "pauseGoals", caller: caller(res), agentId: agentId(req.params) });
  });

  router.post("/agents/:agentId/goal/resume", authenticated, async (req, res) => {
    await validInput(res, agentId(req.params), noBody, bodyOf(req));
    return answer(res, { type: "resumeGoals", caller: caller(res), agentId: agentId(req.params) });
  });

  router.post("/agents/:agentId/message", authenticated, async (req, res) => {
    const { text } = await validInput(res, agentId(req.params), agentMessageBody, req.body);
    const owner = caller(res);
    await refuseIfMuted(res, agentId(req.params), owner);
    return answer(res, { type: "message", caller: owner, agentId: agentId(req.params), text }, 202);
  });

  router.get("/agents/:agentId/quick-actions", authenticated, (req, res) =>
    answer(res, { type: "quickActions", agentId: agentId(req.params) }),
  );

  router.post("/agents/:agentId/quick-actions/:actionId", authenticated, async (req, res) => {
    const actionId = req.params.actionId as string;
    if (!isQuickAction(actionId))
      return refuseRequest(
        res,
        agentId(req.params),
        new ServiceError("not_found", `no quick action ${actionId}`),
      );
    await validInput(res, agentId(req.params), noBody, bodyOf(req));
    return answer(
      res,
      { type: "runQuickAction", caller: caller(res), agentId: agentId(req.params), actionId },
      202,
    );
  });

  router.get("/agents/:agentId/state", authenticated, (req, res) =>
    answer(res, { type: "state", agentId: agentId(req.params) }),
  );

  router.post("/agents/:agentId/actions/:name", authenticated, async (req, res) => {
    const name = req.params.name as string;
    if (!isActionName(name))
      return refuseRequest(res, agentId(req.params), new ServiceError("not_found", `no action ${name}`));
    const params = await validInput(res, agentId(req.params), AGENT_ACTIONS[name].params, bodyOf(req));
    const owner = caller(res);
    if (AGENT_ACTIONS[name].speaks) await refuseIfMuted(res, agentId(req.params), owner);
    return answer(res, { type: "action", caller: owner, agentId: agentId(req.params), name, params });
  });

  return router;
}
