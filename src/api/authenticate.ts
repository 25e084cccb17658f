// Bearer authentication for REST routes: 401 without a trustworthy token, 429 once a client has failed
// too often. The verified identity is resolved to its account, created on first sight.
import type { RequestHandler, Response } from "express";
import { resolveAccount } from "../auth/accounts.js";
import { type Identity, IdentityProviderUnavailableError, InvalidTokenError } from "../auth/tokens.js";
import type { Account } from "../db/accounts.js";
import type { Runtime } from "../runtime.js";
import { ApiError } from "./errors.js";
import { clientKey } from "./rate-limits.js";

export interface Caller {
  identity: Identity;
  account: Account;
}

type AuthRuntime = Pick<Runtime, "tokens" | "rateLimits" | "accounts">;

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/** Verifies the bearer token; failures count as authentication attempts. */
export function authenticate(runtime: AuthRuntime): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token)
      throw new ApiError(401, "unauthorized", "an Authorization: Bearer <token> header is required");
    const identity = await verifyOrRefuse(runtime, token, clientKey(req.ip), res);
    const caller: Caller = { identity, account: await resolveAccount(runtime, identity) };
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

export async function verifyOrRefuse(
  runtime: AuthRuntime,
  token: string,
  client: string,
  res: Response,
): Promise<Identity> {
  try {
    return await runtime.tokens.verify(token);
  } catch (error) {
    if (error instanceof IdentityProviderUnavailableError) {
      throw new ApiError(503, "unavailable", "the identity provider cannot be reached; retry later");
    }
    if (!(error instanceof InvalidTokenError)) throw error;
    const attempt = await runtime.rateLimits.authAttempts.hit(client);
    if (attempt.limited) {
      res.set("Retry-After", String(attempt.retryAfterSeconds));
      throw new ApiError(429, "rate_limited", "too many failed authentication attempts; retry later");
    }
    throw new ApiError(401, "unauthorized", error.message);
  }
}
