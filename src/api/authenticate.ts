// Bearer authentication for REST routes: 401 without a trustworthy token, 429 once a client has failed
// too often. The verified identity is resolved to its account, created on first sight.
import type { RequestHandler, Response } from "express";
import { resolveAccount } from "../auth/accounts.js";
import { bearerToken, type Identity } from "../auth/tokens.js";
import { type AuthRefusal, verifyToken } from "../auth/verify.js";
import type { Account } from "../db/accounts.js";
import { bannedMessage } from "../game/moderation.js";
import { clientKey } from "../limits/rate-limits.js";
import type { Runtime } from "../ports/runtime.js";
import { ServiceError } from "../protocol/errors.js";

export interface Caller {
  identity: Identity;
  account: Account;
}

type AuthRuntime = Pick<Runtime, "tokens" | "rateLimits" | "accounts" | "sightings">;

/** Verifies the bearer token; failures count as authentication attempts. */
export function authenticate(runtime: AuthRuntime): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new ServiceError("unauthorized", "an Authorization: Bearer <token> header is required");
    const identity = await verifyOrRefuse(runtime, token, clientKey(req.ip), res);
    const caller: Caller = { identity, account: await resolveAccount(runtime, identity) };
    const banned = caller.account.bannedUntil?.getTime();
    if (banned !== undefined && banned > Date.now())
      throw new ServiceError("forbidden", bannedMessage(banned));
    await runtime.sightings.seen([caller.account.id]);
    res.locals.caller = caller;
    next();
  };
}

/** The caller that `authenticate` put on the response; a route without it is a wiring mistake. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error("route reached without authenticate()");
  return caller;
}

/** The token's identity; a refusal is thrown as the API error that answers it (see verifyToken). */
export async function verifyOrRefuse(
  runtime: AuthRuntime,
  token: string,
  client: string,
  res: Response,
  counted = false,
): Promise<Identity> {
  const verified = await verifyToken(runtime, token, client, counted);
  if (verified.refusal) throw refusalError(verified.refusal, res);
  return verified.identity;
}

/** The API error of a refusal; a 429 tells the client when to retry (Retry-After). */
function refusalError(refusal: AuthRefusal, res: Response): ServiceError {
  if (refusal.retryAfterSeconds !== undefined) res.set("Retry-After", String(refusal.retryAfterSeconds));
  return new ServiceError(refusal.code, refusal.message);
}
