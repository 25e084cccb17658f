import assert from "node:assert/strict";
import { base64url, exportJWK, exportSPKI, generateKeyPair, SignJWT } from "jose";
import { issueAgentToken, issueAnonymousToken } from "../../src/auth/tokens.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, GENEROUS_LIMITS, type KeySetServer, request, startKeySetServer } from "./support.js";

const APP_ID = "tileworld-test-app";
const ISSUER = "https://auth.idp.test";

describe("bearer tokens from an identity provider (key set served on loopback)", () => {
  let keySet: KeySetServer;
  let server: TestServer;
  let provider: CryptoKeyPair;
  let publicPem: string;

  /** A token as the provider issues it; `changes` spoil one aspect at a time. */
  async function token(
    changes: {
      key?: CryptoKey;
      audience?: string;
      issuer?: string;
      expires?: string | number;
      kid?: string;
    } = {},
  ) {
    return new SignJWT({})
      .setProtectedHeader({ alg: "RS256", kid: changes.kid ?? "provider-key" })
      .setSubject("user-42")
      .setIssuer(changes.issuer ?? ISSUER)
      .setAudience(changes.audience ?? APP_ID)
      .setIssuedAt()
      .setExpirationTime(changes.expires ?? "10m")
      .sign(changes.key ?? provider.privateKey);
  }

  before(async () => {
    provider = await generateKeyPair("RS256");
    publicPem = await exportSPKI(provider.publicKey);
    keySet = await startKeySetServer([
      { ...(await exportJWK(provider.publicKey)), kid: "provider-key", alg: "RS256" },
    ]);
    server = await startTestServer({
      ...GENEROUS_LIMITS,
      PUBLIC_IDP_APP_ID: APP_ID,
      IDP_JWKS_URL: keySet.url,
      IDP_ISSUER: ISSUER,
      AGENTS: "Sentinel",
    });
  });
  after(async () => {
    await server?.stop();
    await keySet?.close();
  });

  it("accepts a valid token and creates the account on first sight", async () => {
    const valid = await token();
    await expectError(await request(server, "/api/v1/player", { token: valid }), 404, "not_found");
    const created = await request(server, "/api/v1/player", { token: valid, body: { name: "Provider One" } });
    assert.equal(created.status, 201);
    const again = await request(server, "/api/v1/player", { token: await token() });
    assert.equal(again.status, 200);
    assert.equal((await again.json()).name, "Provider One");
  });

  /** What the token is, how to make it, and the reason the 401 names. */
  const refusals: [string, () => Promise<string>, string][] = [
    [
      "signed by another key under the provider's key id",
      async () => token({ key: (await generateKeyPair("RS256")).privateKey }),
      "signature",
    ],
    [
      "signed by a key the provider does not publish",
      async () => token({ key: (await generateKeyPair("RS256")).privateKey, kid: "stranger" }),
      "unknown_key",
    ],
    ["for another audience", () => token({ audience: "another-app" }), "audience"],
    ["from another issuer", () => token({ issuer: "https://evil.test" }), "issuer"],
    ["expired", () => token({ expires: Math.floor(Date.now() / 1000) - 60 }), "expired"],
    [
      "with alg none",
      async () => {
        const header = base64url.encode(JSON.stringify({ alg: "none", typ: "JWT" }));
        const payload = base64url.encode(
          JSON.stringify({
            sub: "user-42",
            iss: ISSUER,
            aud: APP_ID,
            exp: Math.floor(Date.now() / 1000) + 600,
          }),
        );
        return `${header}.${payload}.`;
      },
      "algorithm",
    ],
    [
      "HS256-signed with the provider's public key as the secret",
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256", kid: "provider-key" })
          .setSubject("user-42")
          .setIssuer(ISSUER)
          .setAudience(APP_ID)
          .setExpirationTime("10m")
          .sign(new TextEncoder().encode(publicPem)),
      "algorithm",
    ],
    [
      "issued by the server for anonymous mode",
      async () => (await issueAnonymousToken(server.runtime.jwtSecret)).token,
      "algorithm",
    ],
    ["that is not a JWT", async () => "not-a-token", "malformed"],
  ];
  for (const [what, make, reason] of refusals) {
    it(`answers 401 to a token ${what}`, async () => {
      const error = await expectError(
        await request(server, "/api/v1/world", { token: await make() }),
        401,
        "unauthorized",
      );
      assert.match(error.message, new RegExp(`\\(${reason}\\)`));
    });
  }

  it("answers 401 without a token or with another scheme", async () => {
    await expectError(await request(server, "/api/v1/world"), 401, "unauthorized");
    await expectError(
      await request(server, "/api/v1/world", { headers: { authorization: "Basic dXNlcjpwYXNz" } }),
      401,
      "unauthorized",
    );
  });

  it("accepts the server's agent tokens only for the agents it stores, making no account of any other", async () => {
    const listed = await request(server, "/api/agents", { token: await token() });
    assert.equal(listed.status, 200);
    const { agents } = (await listed.json()) as { agents: { agentId: string; name: string }[] };
    const sentinel = agents.find((agent) => agent.name === "Sentinel");
    assert.ok(sentinel, "the configured agent is listed");
    const own = await issueAgentToken(server.runtime.jwtSecret, sentinel.agentId);
    const played = await request(server, "/api/v1/player", { token: own });
    assert.equal(played.status, 200);
    assert.equal((await played.json()).name, "Sentinel");
    // Signed with the right secret, but for no agent: refused, and no account is made for it.
    const made = await issueAgentToken(server.runtime.jwtSecret, "anyone-at-all");
    for (const path of ["/api/v1/player", "/api/v1/world"]) {
      const error = await expectError(await request(server, path, { token: made }), 401, "unauthorized");
      assert.match(error.message, /\(unknown_agent\)/);
    }
  });

  it("refuses anonymous sign-in with 403 while a provider is configured", async () => {
    await expectError(await request(server, "/api/v1/auth/anonymous", { method: "POST" }), 403, "forbidden");
  });
});
