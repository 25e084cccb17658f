// What the agent process (`npm run agents`) asks of the game server beyond the public API, with a token
// of its own signed by the shared JWT_SECRET. It keeps its agents' rows, but their accounts and
// characters are this server's: it asks here which owners have been away too long (only this server sees
// them come and go, by accounts' last_seen_at), and to delete an agent's account and character with it.
import { type RequestHandler, Router } from "express";
import { bearerToken, isAgentProcessToken, type TokenVerifier } from "../auth/tokens.js";
import { countAttempt } from "../auth/verify.js";
import type { AccountRepository } from "../db/accounts.js";
import { clientKey, type RateLimits } from "../limits/rate-limits.js";
import { type AbsentOwnersAnswer, absentOwnersBody, agentIdParam } from "../protocol/agent-process.js";
import { ServiceError } from "../protocol/errors.js";
import { callerThenBody } from "./request-body.js";
import { parseOr400 } from "./validate.js";

interface AgentProcessRuntime {
  jwtSecret: Uint8Array;
  accounts: AccountRepository;
  tokens: TokenVerifier;
  rateLimits: RateLimits;
}

export function agentProcessRouter(runtime: AgentProcessRuntime): Router {
  const router = Router();
  const agentProcessOnly: RequestHandler = async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (token && (await isAgentProcessToken(runtime.jwtSecret, token))) return next();
    const refusal = await countAttempt(runtime, clientKey(req.ip));
    if (refusal?.retryAfterSeconds) res.set("Retry-After", String(refusal.retryAfterSeconds));
    throw new ServiceError(
      refusal?.code ?? "unauthorized",
      refusal?.message ?? "only the agent process, with a token signed by the shared JWT_SECRET, may ask",
    );
  };
  router.post("/v1/agent-process/absent-owners", callerThenBody(agentProcessOnly), async (req, res) => {
    const { accountIds, seconds } = parseOr400(absentOwnersBody, req.body);
    const answer: AbsentOwnersAnswer = {
      absent: await runtime.accounts.absentAnonymous(accountIds, seconds),
    };
    res.json(answer);
  });
  router.delete("/v1/agent-process/agents/:agentId", agentProcessOnly, async (req, res) => {
    const agentId = parseOr400(agentIdParam, req.params.agentId);
    // Deleting one already gone is done: the agent process asks again after a failed answer.
    if (!(await runtime.accounts.deleteAgentProcessAgent(agentId)))
      throw new ServiceError(
        "conflict",
        `agent ${agentId} is one this server runs itself, not the agent process's`,
      );
    res.status(204).end();
  });
  return router;
}
