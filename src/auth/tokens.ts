// Bearer tokens: the identity provider's JWTs, or the server's own anonymous ones when no provider is
// configured. Free of Express: the REST API, the WorldRoom and the /ws adapter all verify through here.
import { createPublicKey, type KeyObject, randomUUID } from "node:crypto";
import { createRemoteJWKSet, decodeJwt, errors, type JWTVerifyGetKey, jwtVerify, SignJWT } from "jose";
import type { Config } from "../config/config.js";
import type { AccountKind } from "../db/accounts.js";

export interface Identity {
  /** `idp:<provider subject>`, `anon:<uuid>` or `agent:<agent id>`: the account's key. */
  subject: string;
  kind: AccountKind;
}

export type InvalidTokenReason =
  | "malformed"
  | "algorithm"
  | "signature"
  | "expired"
  | "audience"
  | "issuer"
  | "unknown_key"
  | "unknown_agent"
  | "claims";

/** The token cannot be trusted: the caller gets 401. */
export class InvalidTokenError extends Error {
  override name = "InvalidTokenError";
  constructor(readonly reason: InvalidTokenReason) {
    super(`invalid token (${reason})`);
  }
}

/** The provider's key set could not be fetched: the token is neither trusted nor refused (503). */
export class IdentityProviderUnavailableError extends Error {
  override name = "IdentityProviderUnavailableError";
}

export interface TokenVerifier {
  verify(token: string): Promise<Identity>;
}

/** The issuer of the tokens the server signs itself: anonymous players' and its agents'. */
export const SERVER_ISSUER = "tileworld";
export const ANONYMOUS_AUDIENCE = "tileworld-anonymous";
/** The server's own tokens are temporary; a client refreshes its token before this runs out. */
export const SERVER_TOKEN_SECONDS = 60 * 60;
/**
 * An anonymous identity's renewal token, kept beside its token and accepted only by
 * `POST /api/v1/auth/anonymous`: a player back after its token ran out (a closed tab, a night away)
 * renews with it and plays the same character, where a new identity would be a new player.
 */
export const ANONYMOUS_RENEWAL_AUDIENCE = "tileworld-anonymous-renewal";
export const ANONYMOUS_RENEWAL_SECONDS = 30 * 24 * 60 * 60;
/** The server's own agents sign in with tokens of this audience, whether or not a provider is configured. */
export const AGENT_AUDIENCE = "tileworld-agent";

/** Provider tokens must be signed with a private key: never `none`, never a shared secret (HS*). */
const PROVIDER_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

type ProviderConfig = Pick<
  Config,
  "identityProvider" | "IDP_JWKS_URL" | "IDP_VERIFICATION_KEY" | "IDP_ISSUER" | "PUBLIC_IDP_APP_ID"
>;

export interface VerifierOptions {
  /**
   * After fetching the provider's key set, how long a token with an unknown key id waits before it may
   * cause another fetch (jose's default, 30 s, keeps forged key ids from hammering the provider).
   */
  keySetCooldownMs?: number;
  /**
   * Whether the server stores an agent of this id. Agent tokens name no other: without it, anyone who
   * forged one (a guessed JWT_SECRET) would make an account of any `sub`.
   */
  agentExists?: (agentId: string) => Promise<boolean>;
}

/** With a provider configured only its tokens are accepted; otherwise only the server's anonymous ones. */
export function createTokenVerifier(
  config: ProviderConfig,
  jwtSecret: Uint8Array,
  options: VerifierOptions = {},
): TokenVerifier {
  const users = userTokenVerifier(config, jwtSecret, options);
  return {
    verify: async (token) => {
      // The audience only picks the check; the check itself verifies the signature with its own key.
      if (claimedAudience(token) !== AGENT_AUDIENCE) return users.verify(token);
      const { payload } = await verifyOrExplain(token, jwtSecret, {
        algorithms: ["HS256"],
        issuer: SERVER_ISSUER,
        audience: AGENT_AUDIENCE,
      });
      if (options.agentExists && !(await options.agentExists(payload.sub!)))
        throw new InvalidTokenError("unknown_agent");
      return { subject: `agent:${payload.sub}`, kind: "agent" };
    },
  };
}

function claimedAudience(token: string): unknown {
  try {
    return decodeJwt(token).aud;
  } catch {
    return undefined;
  }
}

function userTokenVerifier(
  config: ProviderConfig,
  jwtSecret: Uint8Array,
  options: VerifierOptions,
): TokenVerifier {
  if (!config.identityProvider) {
    return {
      verify: async (token) => {
        const { payload } = await verifyOrExplain(token, jwtSecret, {
          algorithms: ["HS256"],
          issuer: SERVER_ISSUER,
          audience: ANONYMOUS_AUDIENCE,
        });
        return { subject: `anon:${payload.sub}`, kind: "anonymous" };
      },
    };
  }
  const issuer = config.IDP_ISSUER;
  // loadConfig refuses this too; checked here because jose skips the issuer check when given none.
  if (!issuer) throw new Error("an identity provider needs IDP_ISSUER, the issuer its tokens must name");
  const key = providerKey(config, options);
  return {
    verify: async (token) => {
      const { payload } = await verifyOrExplain(token, key, {
        algorithms: PROVIDER_ALGORITHMS,
        issuer,
        audience: config.PUBLIC_IDP_APP_ID,
      });
      return { subject: `idp:${payload.sub}`, kind: "idp" };
    },
  };
}

export interface AnonymousTokens {
  token: string;
  subject: string;
  expiresAt: Date;
  renewalToken: string;
  renewalExpiresAt: Date;
}

/**
 * A fresh temporary identity, or new tokens for `subject` (an `anon:` identity) when renewing: the token
 * that signs it in and the renewal token that gets it a new one later (see ANONYMOUS_RENEWAL_AUDIENCE).
 */
export async function issueAnonymousToken(
  jwtSecret: Uint8Array,
  subject = `anon:${randomUUID()}`,
): Promise<AnonymousTokens> {
  const sub = subject.replace(/^anon:/, "");
  const expiresAt = serverTokenExpiry();
  const renewalExpiresAt = new Date((Math.floor(Date.now() / 1000) + ANONYMOUS_RENEWAL_SECONDS) * 1000);
  const [token, renewalToken] = await Promise.all([
    serverToken(jwtSecret, sub, ANONYMOUS_AUDIENCE, expiresAt),
    serverToken(jwtSecret, sub, ANONYMOUS_RENEWAL_AUDIENCE, renewalExpiresAt),
  ]);
  return { token, subject, expiresAt, renewalToken, renewalExpiresAt };
}

/** Whether `token` claims to be a renewal token (it is verified by verifyAnonymousRenewal). */
export function isRenewalToken(token: string): boolean {
  return claimedAudience(token) === ANONYMOUS_RENEWAL_AUDIENCE;
}

/** The anonymous identity a renewal token names; InvalidTokenError when it is not one this server signed. */
export async function verifyAnonymousRenewal(jwtSecret: Uint8Array, token: string): Promise<Identity> {
  const { payload } = await verifyOrExplain(token, jwtSecret, {
    algorithms: ["HS256"],
    issuer: SERVER_ISSUER,
    audience: ANONYMOUS_RENEWAL_AUDIENCE,
  });
  return { subject: `anon:${payload.sub}`, kind: "anonymous" };
}

/** A token for one of the server's own agents (see src/agents). */
export function issueAgentToken(jwtSecret: Uint8Array, agentId: string): Promise<string> {
  return serverToken(jwtSecret, agentId, AGENT_AUDIENCE, serverTokenExpiry());
}

/**
 * The agent process's token for the game server's own questions to it (which owners are absent): only a
 * process that holds the shared JWT_SECRET can make one, and no account stands behind it.
 */
export const AGENT_PROCESS_AUDIENCE = "tileworld-agent-process";

export function issueAgentProcessToken(jwtSecret: Uint8Array): Promise<string> {
  return serverToken(jwtSecret, "agent-process", AGENT_PROCESS_AUDIENCE, serverTokenExpiry());
}

/** Whether `token` is an agent process's token signed with this server's JWT_SECRET. */
export async function isAgentProcessToken(jwtSecret: Uint8Array, token: string): Promise<boolean> {
  try {
    await verifyOrExplain(token, jwtSecret, {
      algorithms: ["HS256"],
      issuer: SERVER_ISSUER,
      audience: AGENT_PROCESS_AUDIENCE,
    });
    return true;
  } catch {
    return false;
  }
}

/** When a token the server signs now runs out (whole seconds, as a JWT says it). */
function serverTokenExpiry(): Date {
  return new Date((Math.floor(Date.now() / 1000) + SERVER_TOKEN_SECONDS) * 1000);
}

/** A token the server signs itself (HS256 with JWT_SECRET), for one of its own audiences. */
function serverToken(
  jwtSecret: Uint8Array,
  subject: string,
  audience: string,
  expiresAt: Date,
): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(subject)
    .setIssuer(SERVER_ISSUER)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(jwtSecret);
}

function providerKey(config: ProviderConfig, options: VerifierOptions): KeyObject | JWTVerifyGetKey {
  // The remote set is cached; an unknown key id refetches it (after the cooldown), which follows key rotation.
  if (config.IDP_JWKS_URL) {
    return createRemoteJWKSet(new URL(config.IDP_JWKS_URL), { cooldownDuration: options.keySetCooldownMs });
  }
  const source = config.IDP_VERIFICATION_KEY ?? "";
  // createPublicKey refuses symmetric keys, so a shared secret can never stand in for the provider's key.
  return source.startsWith("{")
    ? createPublicKey({ key: JSON.parse(source), format: "jwk" })
    : createPublicKey(source.replaceAll("\\n", "\n"));
}

async function verifyOrExplain(
  token: string,
  key: Uint8Array | KeyObject | JWTVerifyGetKey,
  options: { algorithms: string[]; issuer?: string; audience?: string },
) {
  try {
    // A token without `exp` would never run out: one that leaked would stay good for ever.
    const result = await jwtVerify(token, key as KeyObject, { ...options, requiredClaims: ["exp"] });
    if (!isUsableSubject(result.payload.sub)) throw new InvalidTokenError("claims");
    return result;
  } catch (error) {
    throw explain(error);
  }
}

/** The longest `sub` taken: providers' subjects are ids of a few dozen characters. */
const MAX_SUBJECT_LENGTH = 255;

/**
 * Whether a `sub` can key an account: text the database stores as it is (no NUL or other control
 * character, no lone surrogate, which UTF-8 cannot carry), of a provider's usual length.
 */
function isUsableSubject(sub: string | undefined): sub is string {
  return (
    sub !== undefined &&
    sub.length > 0 &&
    sub.length <= MAX_SUBJECT_LENGTH &&
    Buffer.from(sub).toString() === sub &&
    !/\p{Cc}/u.test(sub)
  );
}

function explain(error: unknown): Error {
  if (error instanceof InvalidTokenError) return error;
  if (error instanceof errors.JWTExpired) return new InvalidTokenError("expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return new InvalidTokenError("audience");
    if (error.claim === "iss") return new InvalidTokenError("issuer");
    return new InvalidTokenError("claims");
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return new InvalidTokenError("algorithm");
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return new InvalidTokenError("signature");
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new InvalidTokenError("unknown_key");
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || isFetchFailure(error)) {
    return new IdentityProviderUnavailableError("the identity provider's key set could not be fetched", {
      cause: error,
    });
  }
  if (error instanceof errors.JOSEError || error instanceof TypeError)
    return new InvalidTokenError("malformed");
  return error instanceof Error ? error : new Error(String(error));
}

/** jose's remote key set rethrows fetch's own errors (connection refused, non-200 answers). */
function isFetchFailure(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.message === "fetch failed" ||
      (error instanceof errors.JOSEError && error.code === "ERR_JOSE_GENERIC"))
  );
}

/** The token of an `Authorization: Bearer <token>` header, the scheme's case aside (as HTTP has it). */
export function bearerToken(header: string | null | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}
