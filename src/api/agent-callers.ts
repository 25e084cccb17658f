// The agent process authenticates its callers by asking the game server who they are
// (GET /api/v1/account with their own token): the same verification, accounts and admins as there,
// and the game server's refusal (401, 429, 503) passed on as it was given.
import type { RequestHandler, Response } from "express";
import { decodeJwt } from "jose";
import type { AgentCaller } from "../agents/requests.js";
import { sightingIntervalMs } from "../auth/sightings.js";
import { bearerToken } from "../auth/tokens.js";
import { clientKey } from "../limits/rate-limits.js";
import { ServiceError } from "../protocol/errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { AccountBody } from "./account.js";
import type { AddressVoucher } from "./vouched-address.js";

/**
 * A token's account is asked again after this long (a dashboard polls every few seconds), or sooner
 * when owners are taken for absent sooner: asking is what marks the owner seen on the game server, where
 * the agent process learns which owners are absent.
 */
const REMEMBER_MS = 30_000;
const REMEMBERED_MAX = 10_000;
const ASK_TIMEOUT_MS = 10_000;

/**
 * The caller's account, asked of the game server (and remembered a while), with its address: the one
 * the game server vouched for when it forwarded the request, or the request's own.
 */
export function authenticateThrough(
  gameServerUrl: string,
  ownerAbsenceSeconds: number,
  voucher: AddressVoucher,
  logger: Logger,
): RequestHandler {
  const rememberMs = Math.min(REMEMBER_MS, sightingIntervalMs(ownerAbsenceSeconds));
  const remembered = new Map<string, { account: Omit<AgentCaller, "address">; until: number }>();
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new ServiceError("unauthorized", "an Authorization: Bearer <token> header is required");
    const from = voucher.of(req) ?? req.ip ?? "unknown";
    const address = clientKey(from);
    const known = remembered.get(token);
    if (known && known.until > Date.now()) {
      res.locals.agentCaller = { ...known.account, address };
      return next();
    }
    let answer: globalThis.Response;
    try {
      answer = await fetch(new URL("/api/v1/account", gameServerUrl), {
        // Counted there as the caller's request, at its address, not as one of this process's.
        headers: { authorization: `Bearer ${token}`, ...voucher.headers(from) },
        signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
      });
    } catch {
      logger.warn(
        { gameServer: gameServerUrl },
        `the game server at ${gameServerUrl} (GAME_SERVER_URL) does not answer, so callers cannot be checked`,
      );
      throw new ServiceError("unavailable", "the caller cannot be checked now; retry shortly");
    }
    if (!answer.ok) {
      res.status(answer.status);
      for (const name of ["content-type", "retry-after", "www-authenticate"]) {
        const value = answer.headers.get(name);
        if (value !== null) res.set(name, value);
      }
      res.end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    const body = (await answer.json()) as AccountBody;
    const account = {
      accountId: body.accountId,
      isAdmin: body.isAdmin,
      mutedUntil: body.mutedUntil === null ? null : Date.parse(body.mutedUntil),
    };
    if (remembered.size >= REMEMBERED_MAX) remembered.clear();
    // Never past the token's own expiry: an expired token is refused here as it is there.
    const until = Math.min(Date.now() + rememberMs, expiryMs(token));
    remembered.set(token, { account, until });
    res.locals.agentCaller = { ...account, address } satisfies AgentCaller;
    next();
  };
}

/** When the token expires (its `exp`), as the game server just accepted it; never when it names none. */
function expiryMs(token: string): number {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === "number" ? exp * 1000 : Number.POSITIVE_INFINITY;
  } catch {
    return 0;
  }
}

/** The caller `authenticateThrough` found. */
export function agentCallerOf(res: Response): AgentCaller {
  const caller = res.locals.agentCaller as AgentCaller | undefined;
  if (!caller) throw new Error("route reached without authenticateThrough()");
  return caller;
}
