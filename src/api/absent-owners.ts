// POST /api/v1/agent-process/absent-owners: which of its agents' owners have been away too long. The
// agent process keeps its agents' rows, but only this server sees the owners come and go (accounts'
// last_seen_at), so it asks here to remove the agents of anonymous owners gone for good, as this server
// does with the agents it runs itself.
import { type RequestHandler, Router } from "express";
import { isAgentProcessToken, type TokenVerifier } from "../auth/tokens.js";
import { countAttempt } from "../auth/verify.js";
import type { AccountRepository } from "../db/accounts.js";
import { clientKey, type RateLimits } from "../limits/rate-limits.js";
import { type AbsentOwnersAnswer, absentOwnersBody } from "../protocol/agent-process.js";
import { ServiceError } from "../protocol/errors.js";
import { bearerToken } from "./authenticate.js";
import { callerThenBody } from "./request-body.js";
import { parseOr400 } from "./validate.js";

interface AbsentOwnersRuntime {
  jwtSecret: Uint8Array;
  accounts: AccountRepository;
  tokens: TokenVerifier;
  rateLimits: RateLimits;
}

export function absentOwnersRouter(runtime: AbsentOwnersRuntime): Router {
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
  return router;
}
