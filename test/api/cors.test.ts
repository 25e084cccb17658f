import assert from "node:assert/strict";
import { corsHeadersFor } from "../../src/api/cors.js";
import { loadConfig } from "../../src/config/config.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { GENEROUS_LIMITS, request } from "./support.js";

const CORS_HEADERS = {
  "access-control-allow-credentials": "true",
  "access-control-allow-methods": "GET, PUT, POST, DELETE, OPTIONS, PATCH",
  "access-control-allow-headers": "Content-Type, Authorization, X-Requested-With",
  "access-control-expose-headers": "Retry-After, RateLimit, RateLimit-Policy",
};

function corsOf(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("access-control-")));
}

describe("cross-origin requests", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      ...GENEROUS_LIMITS,
      CORS_ALLOWED_ORIGINS: "https://play.tileworld.example",
      PUBLIC_APP_URL: "https://app.tileworld.example/",
    });
  });
  after(() => server?.stop());

  const allowed: [string, string][] = [
    ["an origin of the allow-list", "https://play.tileworld.example"],
    ["PUBLIC_APP_URL", "https://app.tileworld.example"],
    ["localhost on any port", "http://localhost:3333"],
    ["localhost over https", "https://localhost:8443"],
    ["a preview deployment of the frontend host", "https://feature-x-tileworld.vercel.app"],
    ["a preview deployment of the server host", "https://pr-12.colyseus.cloud"],
    ["an embedding partner", "https://www.crazygames.com"],
    ["a subdomain of the identity provider", "https://auth.privy.io"],
  ];
  for (const [what, origin] of allowed) {
    it(`echoes ${what} with credentials and the method and header lists`, async () => {
      const response = await request(server, "/health", { headers: { origin } });
      assert.deepEqual(corsOf(response), { ...CORS_HEADERS, "access-control-allow-origin": origin });
      assert.match(response.headers.get("vary") ?? "", /Origin/);
    });
  }

  const refused: [string, string][] = [
    ["an unknown site", "https://evil.example"],
    ["a preview host over plain http", "http://feature-x.vercel.app"],
    ["a look-alike of a preview host", "https://vercel.app.evil.example"],
    ["the preview platform's own domain", "https://vercel.app"],
    ["an opaque origin", "null"],
  ];
  for (const [what, origin] of refused) {
    it(`gives ${what} no CORS headers at all`, async () => {
      const response = await request(server, "/api/v1/world", { headers: { origin } });
      assert.equal(response.status, 401);
      assert.deepEqual(corsOf(response), {});
    });
  }

  it("varies every response on Origin, so a cache never serves one origin's copy to another", async () => {
    const origins = [undefined, "https://evil.example", "http://localhost:3333"];
    for (const origin of origins) {
      const response = await request(server, "/manifests/npcs.json", { headers: origin ? { origin } : {} });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("cache-control") ?? "", /public/);
      assert.match(response.headers.get("vary") ?? "", /\bOrigin\b/i, `origin ${origin}`);
    }
  });

  it("answers the preflight of an allowed origin with 204 and the CORS headers", async () => {
    const response = await request(server, "/api/v1/player", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3333",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    assert.equal(response.status, 204);
    assert.deepEqual(corsOf(response), {
      ...CORS_HEADERS,
      "access-control-allow-origin": "http://localhost:3333",
    });
  });

  it("answers the preflight of a refused origin without CORS headers, so the browser blocks the call", async () => {
    const response = await request(server, "/api/v1/player", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    assert.deepEqual(corsOf(response), {});
  });

  it("refuses a wildcard in the allow-list, and never answers with one (production configuration)", () => {
    const production = {
      NODE_ENV: "production",
      DATABASE_URL: "postgres://db.invalid/tileworld",
      JWT_SECRET: "a-secret-of-at-least-32-bytes-long!",
      ADMIN_CODE: "an-admin-code-long-enough",
      PUBLIC_IDP_APP_ID: "app",
      IDP_APP_SECRET: "s",
      IDP_JWKS_URL: "https://idp.invalid/jwks.json",
      IDP_ISSUER: "https://idp.invalid",
    };
    assert.throws(
      () => loadConfig({ ...production, CORS_ALLOWED_ORIGINS: "*" }),
      /CORS_ALLOWED_ORIGINS.*\* is not an origin/,
    );
    // A list that held one past the check still echoes only origins it names.
    const config = { ...loadConfig(production), CORS_ALLOWED_ORIGINS: ["*"] };
    assert.equal(corsHeadersFor("https://anyone.example", config)["Access-Control-Allow-Origin"], undefined);
    assert.equal(
      corsHeadersFor("http://localhost:3333", config)["Access-Control-Allow-Origin"],
      "http://localhost:3333",
    );
  });
});
