import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { API_DOC, endpointReference, REGENERATE, withoutLayout, withReference } from "../scripts/api-doc.js";
import { ENDPOINTS } from "../src/api/endpoints.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** Where the routers of a file are mounted (see src/server/app.ts and src/api/index.ts); src/api's others: /api. */
const MOUNTS: Record<string, string> = {
  "src/server/app.ts": "",
  "src/api/health.ts": "",
  "src/api/metrics.ts": "",
  "src/api/env-js.ts": "",
  "src/manifests/routes.ts": "/api/data/skill-unlocks",
};

/** The routes the source registers (`router.get("/path", ...)` and the like), as "METHOD /path". */
function registeredRoutes(): string[] {
  const files = readdirSync("src", { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join("src", file));
  return files.flatMap((file) => {
    const source = readFileSync(file, "utf8");
    const prefix = MOUNTS[file] ?? (file.startsWith("src/api/") ? "/api" : "");
    return [
      ...source.matchAll(/\b(?:router|app|Router\(\))\s*\.(get|post|put|patch|delete)\(\s*"([^"]*)"/g),
    ].map(([, method, route]) => `${method!.toUpperCase()} ${(prefix + route).replace(/(.)\/$/, "$1")}`);
  });
}

describe("docs/api.md", () => {
  it(`is as generated from src/api/endpoints.ts (else run ${REGENERATE})`, () => {
    const document = readFileSync(API_DOC, "utf8");
    assert.equal(
      withoutLayout(document),
      withoutLayout(withReference(document, endpointReference())),
      `docs/api.md is out of date: run ${REGENERATE}`,
    );
  });

  it("documents every route the source registers", () => {
    const documented = new Set(ENDPOINTS.map(({ method, path }) => `${method} ${path}`));
    const routes = registeredRoutes();
    assert.ok(
      routes.length >= 20,
      `found only ${routes.length} routes: has the way routes are written changed?`,
    );
    assert.deepEqual(
      routes.filter((route) => !documented.has(route)),
      [],
      `add these to src/api/endpoints.ts, then run ${REGENERATE}`,
    );
  });

  describe("against a running server", function () {
    this.timeout(30000);
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server?.stop());

    it("has every documented endpoint, with the auth it says", async () => {
      for (const endpoint of ENDPOINTS) {
        const route = endpoint.example ?? endpoint.path.replace(/:\w+/g, "some-id");
        const response = await fetch(`${server.baseUrl}${route}`, { method: endpoint.method });
        const text = await response.text();
        const where = `${endpoint.method} ${route}: ${response.status} ${text.slice(0, 200)}`;
        assert.doesNotMatch(text, /no endpoint/, where);
        // Without a token: 401 wherever one is needed.
        if (endpoint.auth.startsWith("bearer") || endpoint.auth === "agent process")
          assert.equal(response.status, 401, where);
        else assert.notEqual(response.status, 401, where);
      }
    });
  });
});
