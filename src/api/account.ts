// GET /api/v1/account: who the bearer token's account is. The agent process (src/server/agents-process.ts)
// asks it to authenticate its own callers exactly as this server does.
import { type RequestHandler, Router } from "express";
import { callerOf } from "./authenticate.js";

/** The body of GET /api/v1/account. */
export interface AccountBody {
  accountId: string;
  isAdmin: boolean;
  /** Until when an admin muted it (ISO 8601), or null. */
  mutedUntil: string | null;
}

export function accountRouter(authenticated: RequestHandler): Router {
  const router = Router();
  router.get("/v1/account", authenticated, (_req, res) => {
    const { account } = callerOf(res);
    const body: AccountBody = {
      accountId: account.id,
      isAdmin: account.isAdmin,
      mutedUntil: account.mutedUntil?.toISOString() ?? null,
    };
    res.json(body);
  });
  return router;
}
