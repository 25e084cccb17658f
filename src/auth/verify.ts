// Token checks as every entry point makes them (REST, rooms, /ws): a token that cannot be trusted counts
// as an authentication attempt of its client, and past the limit the client is refused outright.
import type { RateLimits } from "../limits/rate-limits.js";
import {
  type Identity,
  IdentityProviderUnavailableError,
  InvalidTokenError,
  type TokenVerifier,
} from "./tokens.js";

/** Why a client is not let in, as each transport reports it (HTTP status, or room error code). */
export interface AuthRefusal {
  status: 401 | 429 | 503;
  code: "unauthorized" | "rate_limited" | "unavailable";
  message: string;
  /** With 429: seconds until the client may try again. */
  retryAfterSeconds?: number;
}

export type Verified = { identity: Identity; refusal?: undefined } | { refusal: AuthRefusal };

type AuthRuntime = { tokens: TokenVerifier; rateLimits: RateLimits };

/** Counts an authentication attempt of `client` (its clientKey); the refusal once it is over the limit. */
export async function countAttempt(
  runtime: Pick<AuthRuntime, "rateLimits">,
  client: string,
): Promise<AuthRefusal | undefined> {
  const attempt = await runtime.rateLimits.authAttempts.hit(client);
  if (!attempt.limited) return undefined;
  return {
    status: 429,
    code: "rate_limited",
    message: "too many authentication attempts; retry later",
    retryAfterSeconds: attempt.retryAfterSeconds,
  };
}

/**
 * The token's identity, or why it is refused; an untrustworthy token counts against `client`, unless the
 * request was counted as an attempt already (`counted`: the token-issuing route's own limit).
 */
export async function verifyToken(
  runtime: AuthRuntime,
  token: string,
  client: string,
  counted = false,
): Promise<Verified> {
  try {
    return { identity: await runtime.tokens.verify(token) };
  } catch (error) {
    // The provider's key set could not be fetched: the token is not refused, the service is unavailable.
    if (error instanceof IdentityProviderUnavailableError) {
      return {
        refusal: {
          status: 503,
          code: "unavailable",
          message: "the identity provider cannot be reached; retry later",
        },
      };
    }
    if (!(error instanceof InvalidTokenError)) throw error;
    const refusal = (counted ? undefined : await countAttempt(runtime, client)) ?? {
      status: 401,
      code: "unauthorized",
      message: error.message,
    };
    return { refusal };
  }
}
