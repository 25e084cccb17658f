import assert from "node:assert/strict";
import vm from "node:vm";
import { publicConfig } from "../../src/api/env-js.js";
import { LOCAL_CDN_URL, loadConfig } from "../../src/config/config.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { GENEROUS_LIMITS, request } from "./support.js";

const SECRETS = {
  JWT_SECRET: "jwt-secret-Zq81x",
  ADMIN_CODE: "admin-code-Pw72k",
  IDP_APP_SECRET: "idp-secret-Lm55t",
};

/** Runs the script as a browser would and returns what it set. */
function evaluate(script: string): Record<string, string> {
  const window: { env?: Record<string, string> } = {};
  vm.runInNewContext(script, { window });
  return { ...window.env };
}

describe("GET /env.js", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      ...GENEROUS_LIMITS,
      ...SECRETS,
      PUBLIC_IDP_APP_ID: "public-app-id",
      PUBLIC_APP_URL: "https://app.tileworld.example",
      PUBLIC_ADDRESS: "10.1.2.3:2567",
    });
  });
  after(() => server?.stop());

  it("is an uncached script setting the client's configuration, its own addresses taken from the request", async () => {
    const response = await request(server, "/env.js");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/javascript/);
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.deepEqual(evaluate(await response.text()), {
      PUBLIC_IDP_APP_ID: "public-app-id",
      PUBLIC_APP_URL: "https://app.tileworld.example",
      PUBLIC_API_URL: server.baseUrl,
      PUBLIC_WS_URL: server.wsUrl,
      PUBLIC_CDN_URL: LOCAL_CDN_URL,
    });
  });

  it("leaves out PUBLIC_ADDRESS, one process's internal address", async () => {
    const script = await (await request(server, "/env.js")).text();
    assert.ok(!script.includes("10.1.2.3"), script);
  });

  it("ignores X-Forwarded-Proto and X-Forwarded-Host from a proxy it was not told to trust", async () => {
    const headers = { "x-forwarded-proto": "https", "x-forwarded-host": "elsewhere.example" };
    const response = await request(server, "/env.js", { headers });
    assert.equal(evaluate(await response.text()).PUBLIC_API_URL, server.baseUrl);
  });

  it("contains none of the secrets", async () => {
    const script = await (await request(server, "/env.js")).text();
    for (const [name, value] of Object.entries(SECRETS)) assert.ok(!script.includes(value), `${name} leaked`);
    assert.ok(!script.includes(Buffer.from(server.runtime.jwtSecret).toString("base64")));
  });

  it("keeps configured addresses, deriving the WebSocket one from the API's", () => {
    const config = loadConfig({
      PUBLIC_API_URL: "https://api.tileworld.example",
      PUBLIC_CDN_URL: "https://cdn.tileworld.example",
    });
    assert.deepEqual(publicConfig(config, "http://ignored:1"), {
      PUBLIC_API_URL: "https://api.tileworld.example",
      PUBLIC_WS_URL: "wss://api.tileworld.example/ws",
      PUBLIC_CDN_URL: "https://cdn.tileworld.example",
    });
  });
});

describe("GET /env.js behind a trusted proxy (TRUST_PROXY=1)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ TRUST_PROXY: "1" });
  });
  after(() => server?.stop());

  it("derives the public addresses from the proxy's scheme", async () => {
    const response = await request(server, "/env.js", { headers: { "x-forwarded-proto": "https" } });
    const env = evaluate(await response.text());
    const host = new URL(server.baseUrl).host;
    assert.equal(env.PUBLIC_API_URL, `https://${host}`);
    assert.equal(env.PUBLIC_WS_URL, `wss://${host}/ws`);
  });

  it("takes the public host from X-Forwarded-Host, where a proxy rewrites Host, in /env.js and the pages' policy", async () => {
    const headers = { "x-forwarded-proto": "https", "x-forwarded-host": "play.tileworld.example" };
    const env = evaluate(await (await request(server, "/env.js", { headers })).text());
    assert.equal(env.PUBLIC_API_URL, "https://play.tileworld.example");
    assert.equal(env.PUBLIC_WS_URL, "wss://play.tileworld.example/ws");
    const page = await request(server, "/play", { headers });
    const policy = page.headers.get("content-security-policy") ?? "";
    assert.match(policy, /connect-src [^;]*wss:\/\/play\.tileworld\.example( |;|$)/);
  });
});
