// POST /api/v1/auth/anonymous: temporary identities for anonymous mode (no identity provider configured).
import { Router } from "express";
import { accountWithCharacter, NAMES_EXHAUSTED_MESSAGE } from "../auth/accounts.js";
import {
  bearerToken,
  isRenewalToken,
  issueAnonymousToken,
  type TokenVerifier,
  verifyAnonymousRenewal,
} from "../auth/tokens.js";
import { NamesExhaustedError } from "../db/characters.js";
import { bannedMessage } from "../game/moderation.js";
import { clientKey } from "../limits/rate-limits.js";
import type { Runtime } from "../ports/runtime.js";
import { ServiceError } from "../protocol/errors.js";
import { verifyOrRefuse } from "./authenticate.js";
import { readBody } from "./request-body.js";
import { bodyOf, noBody, parseOr400 } from "./validate.js";

/**
 * Issues a token for a new identity, with its account and character, so `playerId` can be played at once.
 * Presenting a still-valid anonymous token, or the renewal token issued with one, renews it for the same
 * identity instead.
 */
export function anonymousAuthRouter(
  runtime: Pick<
    Runtime,
    "config" | "jwtSecret" | "rateLimits" | "accounts" | "characters" | "gameData" | "tokens" | "sightings"
  >,
): Router {
  return Router().post("/v1/auth/anonymous", runtime.rateLimits.tokenIssuance, async (req, res) => {
    if (runtime.config.identityProvider) {
      throw new ServiceError(
        "forbidden",
        "anonymous sign-in is disabled: sign in with the identity provider",
      );
    }
    const presented = bearerToken(req.headers.authorization);
    // A still-valid token, or the renewal token of one that ran out; nothing else takes a renewal token.
    const tokens: TokenVerifier = {
      verify: (token) =>
        isRenewalToken(token)
          ? verifyAnonymousRenewal(runtime.jwtSecret, token)
          : runtime.tokens.verify(token),
    };
    // The route's limit has counted this request: a bad token is not counted a second time.
    const renewed = presented
      ? await verifyOrRefuse({ ...runtime, tokens }, presented, clientKey(req.ip), res, true)
      : undefined;
    // An agent's token names no anonymous identity: renewing it would answer with a character the new
    // token could not play.
    if (renewed && renewed.kind !== "anonymous")
      throw new ServiceError("forbidden", "only an anonymous identity's token is renewed here");
    await readBody(req, res);
    parseOr400(noBody, bodyOf(req));
    const issued = await issueAnonymousToken(runtime.jwtSecret, renewed?.subject);
    const identity = { subject: issued.subject, kind: "anonymous" } as const;
    const { account, characterId: playerId } = await accountWithCharacter(runtime, identity).catch(
      (error) => {
        if (error instanceof NamesExhaustedError)
          throw new ServiceError("unavailable", NAMES_EXHAUSTED_MESSAGE);
        throw error;
      },
    );
    // A banned account's tokens are not renewed: its REST requests are refused until the ban ends.
    const banned = account.bannedUntil?.getTime();
    if (banned !== undefined && banned > Date.now())
      throw new ServiceError("forbidden", bannedMessage(banned));
    res.status(201).json({
      token: issued.token,
      playerId,
      expiresAt: issued.expiresAt.toISOString(),
      renewalToken: issued.renewalToken,
      renewalExpiresAt: issued.renewalExpiresAt.toISOString(),
    });
  });
}
