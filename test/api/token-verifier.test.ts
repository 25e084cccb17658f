import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from "jose";
import {
  ANONYMOUS_AUDIENCE,
  createTokenVerifier,
  IdentityProviderUnavailableError,
  InvalidTokenError,
  issueAgentToken,
  issueAnonymousToken,
  SERVER_ISSUER,
} from "../../src/auth/tokens.js";
import { type KeySetServer, startKeySetServer } from "./support.js";

const APP_ID = "tileworld-test-app";
const ISSUER = "https://auth.idp.test";

async function providerToken(privateKey: CryptoKey, alg: string, kid?: string, expires = true) {
  const token = new SignJWT({})
    .setProtectedHeader(kid ? { alg, kid } : { alg })
    .setSubject("user-1")
    .setIssuer(ISSUER)
    .setAudience(APP_ID);
  return (expires ? token.setExpirationTime("5m") : token).sign(privateKey);
}

/** A verifier of the provider's tokens, given its public key as PEM. */
async function pemKeyVerifier(publicKey: CryptoKey) {
  return createTokenVerifier(
    {
      identityProvider: true,
      PUBLIC_IDP_APP_ID: APP_ID,
      IDP_ISSUER: ISSUER,
      IDP_VERIFICATION_KEY: await exportSPKI(publicKey),
    },
    randomBytes(32),
  );
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => assert.fail("the token was accepted"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof InvalidTokenError, String(error));
  return error.reason;
}

describe("token verifier", () => {
  describe("with a PEM or JWK verification key", () => {
    it("accepts the provider's ES256 tokens from a PEM key and names the identity idp:<sub>", async () => {
      const { publicKey, privateKey } = await generateKeyPair("ES256");
      const verifier = await pemKeyVerifier(publicKey);
      assert.deepEqual(await verifier.verify(await providerToken(privateKey, "ES256")), {
        subject: "idp:user-1",
        kind: "idp",
      });
    });

    it("refuses a provider token that never expires", async () => {
      const { publicKey, privateKey } = await generateKeyPair("ES256");
      const verifier = await pemKeyVerifier(publicKey);
      const forever = await providerToken(privateKey, "ES256", undefined, false);
      assert.equal(await rejection(verifier.verify(forever)), "claims");
    });

    it("refuses a provider token whose subject no account could be keyed by", async () => {
      const { publicKey, privateKey } = await generateKeyPair("ES256");
      const verifier = await pemKeyVerifier(publicKey);
      for (const sub of ["x\u0000y", "line\nbreak", "\ud800", "s".repeat(256)]) {
        const token = await new SignJWT({})
          .setProtectedHeader({ alg: "ES256" })
          .setSubject(sub)
          .setIssuer(ISSUER)
          .setAudience(APP_ID)
          .setExpirationTime("5m")
          .sign(privateKey);
        assert.equal(await rejection(verifier.verify(token)), "claims", JSON.stringify(sub));
      }
    });

    it("accepts a JWK given as JSON", async () => {
      const { publicKey, privateKey } = await generateKeyPair("EdDSA");
      const verifier = createTokenVerifier(
        {
          identityProvider: true,
          PUBLIC_IDP_APP_ID: APP_ID,
          IDP_ISSUER: ISSUER,
          IDP_VERIFICATION_KEY: JSON.stringify(await exportJWK(publicKey)),
        },
        randomBytes(32),
      );
      assert.equal((await verifier.verify(await providerToken(privateKey, "EdDSA"))).subject, "idp:user-1");
    });

    it("refuses an HS256 token whose secret is the provider's public key", async () => {
      const { publicKey } = await generateKeyPair("RS256");
      const pem = await exportSPKI(publicKey);
      const verifier = createTokenVerifier(
        { identityProvider: true, PUBLIC_IDP_APP_ID: APP_ID, IDP_ISSUER: ISSUER, IDP_VERIFICATION_KEY: pem },
        randomBytes(32),
      );
      const forged = await new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("admin")
        .setAudience(APP_ID)
        .setExpirationTime("5m")
        .sign(new TextEncoder().encode(pem));
      assert.equal(await rejection(verifier.verify(forged)), "algorithm");
    });
  });

  describe("with a remote key set", () => {
    let keySet: KeySetServer;
    afterEach(() => keySet?.close());

    it("fetches the set again when a token names a key id it has not seen (key rotation)", async () => {
      const first = await generateKeyPair("RS256");
      const second = await generateKeyPair("RS256");
      keySet = await startKeySetServer([{ ...(await exportJWK(first.publicKey)), kid: "k1", alg: "RS256" }]);
      const verifier = createTokenVerifier(
        { identityProvider: true, PUBLIC_IDP_APP_ID: APP_ID, IDP_ISSUER: ISSUER, IDP_JWKS_URL: keySet.url },
        randomBytes(32),
        { keySetCooldownMs: 0 },
      );
      await verifier.verify(await providerToken(first.privateKey, "RS256", "k1"));
      await verifier.verify(await providerToken(first.privateKey, "RS256", "k1"));
      assert.equal(keySet.fetches(), 1, "the key set is cached");

      keySet.serve([{ ...(await exportJWK(second.publicKey)), kid: "k2", alg: "RS256" }]);
      assert.equal(
        (await verifier.verify(await providerToken(second.privateKey, "RS256", "k2"))).kind,
        "idp",
      );
      assert.equal(keySet.fetches(), 2);
    });

    it("reports an unreachable provider as unavailable, not as a bad token", async () => {
      keySet = await startKeySetServer([]);
      const url = keySet.url;
      await keySet.close();
      const { privateKey } = await generateKeyPair("RS256");
      const verifier = createTokenVerifier(
        { identityProvider: true, PUBLIC_IDP_APP_ID: APP_ID, IDP_ISSUER: ISSUER, IDP_JWKS_URL: url },
        randomBytes(32),
      );
      await assert.rejects(
        verifier.verify(await providerToken(privateKey, "RS256", "k1")),
        IdentityProviderUnavailableError,
      );
    });
  });

  describe("in anonymous mode", () => {
    const secret = randomBytes(32);
    const verifier = createTokenVerifier({ identityProvider: false }, secret);

    it("accepts the server's own tokens and names the identity anon:<uuid>", async () => {
      const { token, subject } = await issueAnonymousToken(secret);
      assert.match(subject, /^anon:[0-9a-f-]{36}$/);
      assert.deepEqual(await verifier.verify(token), { subject, kind: "anonymous" });
    });

    it("refuses tokens signed with another secret, and HS256 tokens for another audience", async () => {
      const { token } = await issueAnonymousToken(randomBytes(32));
      assert.equal(await rejection(verifier.verify(token)), "signature");
      const otherAudience = await new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("x")
        .setIssuer(SERVER_ISSUER)
        .setAudience("someone-else")
        .setExpirationTime("5m")
        .sign(secret);
      assert.equal(await rejection(verifier.verify(otherAudience)), "audience");
    });

    it("refuses a token without a subject", async () => {
      const noSubject = await new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer(SERVER_ISSUER)
        .setAudience(ANONYMOUS_AUDIENCE)
        .setExpirationTime("5m")
        .sign(secret);
      assert.equal(await rejection(verifier.verify(noSubject)), "claims");
    });

    it("refuses a token that never expires", async () => {
      const forever = await new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("x")
        .setIssuer(SERVER_ISSUER)
        .setAudience(ANONYMOUS_AUDIENCE)
        .sign(secret);
      assert.equal(await rejection(verifier.verify(forever)), "claims");
    });
  });

  describe("the server's own agents", () => {
    it("sign in with their own tokens whether or not a provider is configured", async () => {
      const secret = randomBytes(32);
      const { publicKey } = await generateKeyPair("ES256");
      const withProvider = createTokenVerifier(
        {
          identityProvider: true,
          PUBLIC_IDP_APP_ID: APP_ID,
          IDP_ISSUER: ISSUER,
          IDP_VERIFICATION_KEY: await exportSPKI(publicKey),
        },
        secret,
      );
      const anonymous = createTokenVerifier({ identityProvider: false }, secret);
      const token = await issueAgentToken(secret, "agent-7");
      for (const verifier of [withProvider, anonymous])
        assert.deepEqual(await verifier.verify(token), { subject: "agent:agent-7", kind: "agent" });
    });

    it("refuse an agent token signed with another secret", async () => {
      const verifier = createTokenVerifier({ identityProvider: false }, randomBytes(32));
      const forged = await issueAgentToken(randomBytes(32), "agent-7");
      assert.equal(await rejection(verifier.verify(forged)), "signature");
    });
  });
});
