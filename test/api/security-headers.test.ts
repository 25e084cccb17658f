import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { PROCESS_PORTS, type ServerProcess, startAgentProcess } from "../support/processes.js";
import { startTestServer, TEST_PORT, type TestServer } from "../support/server.js";
import { GENEROUS_LIMITS, request } from "./support.js";

const JWT_SECRET = "the secret of the security headers suite";

/** A Content-Security-Policy as its directives, each with its sources. */
function policyOf(response: Response): Map<string, string[]> {
  const header = response.headers.get("content-security-policy");
  assert.ok(header, `${response.url} has a Content-Security-Policy`);
  return new Map(
    header.split(";").map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      return [name!, sources];
    }),
  );
}

/** What every answer of both apps carries, whatever it is. */
function assertHardened(response: Response): void {
  const what = response.url;
  assert.equal(response.headers.get("x-content-type-options"), "nosniff", what);
  assert.equal(response.headers.get("referrer-policy"), "same-origin", what);
  assert.equal(response.headers.get("x-frame-options"), "SAMEORIGIN", what);
  assert.deepEqual(policyOf(response).get("frame-ancestors"), ["'self'"], what);
  assert.equal(response.headers.get("strict-transport-security"), null, `${what}: no HSTS over plain HTTP`);
}

/** GET with a Host header of the test's choosing (fetch sends the URL's own). */
function getWithHost(pathname: string, host: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port: TEST_PORT, path: pathname, headers: { host } }, (response) => {
        response.resume();
        resolve(response);
      })
      .on("error", reject);
  });
}

describe("the hardening headers", function () {
  this.timeout(90000);

  describe("of the game server, its addresses configured", () => {
    let server: TestServer;
    let agentProcess: ServerProcess | undefined;
    let dataDir: string;
    before(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-headers-"));
      server = await startTestServer({
        ...GENEROUS_LIMITS,
        JWT_SECRET,
        PUBLIC_API_URL: "https://api.tileworld.example",
        PUBLIC_WS_URL: "wss://live.tileworld.example/ws",
      });
    });
    after(async () => {
      await agentProcess?.stop();
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("are on the REST API's answers, its refusals too", async () => {
      const signedIn = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
      assert.equal(signedIn.status, 201);
      assertHardened(signedIn);
      const refused = await request(server, "/api/v1/worlds");
      assert.equal(refused.status, 401);
      assertHardened(refused);
      assertHardened(await request(server, "/health"));
    });

    it("are on the matchmaker's answers, which Colyseus gives outside Express, its refusals too", async () => {
      const { token } = await (await request(server, "/api/v1/auth/anonymous", { method: "POST" })).json();
      const seat = await request(server, "/matchmake/joinOrCreate/world", { token, body: { world: 1 } });
      assert.equal(seat.status, 200, await seat.clone().text());
      assertHardened(seat);
      const tooLarge = await request(server, "/matchmake/joinOrCreate/world", {
        body: { padding: "x".repeat(40_000) },
      });
      assert.equal(tooLarge.status, 413);
      assertHardened(tooLarge);
    });

    it("are on /env.js, which other sites' pages may still load", async () => {
      const script = await request(server, "/env.js");
      assert.equal(script.status, 200);
      assertHardened(script);
      // A frontend on its own origin loads it with a <script> tag, as it does the manifests.
      assert.equal(script.headers.get("cross-origin-resource-policy"), "cross-origin");
    });

    it("let the pages run their own scripts only, and connect where /env.js sends them", async () => {
      for (const page of ["/", "/play", "/dashboard"]) {
        const response = await request(server, page);
        assert.equal(response.status, 200, page);
        assertHardened(response);
        const policy = policyOf(response);
        assert.deepEqual(policy.get("script-src"), ["'self'"], page);
        assert.deepEqual(policy.get("object-src"), ["'none'"], page);
        assert.deepEqual(
          policy.get("connect-src"),
          ["'self'", "https://api.tileworld.example", "wss://live.tileworld.example"],
          page,
        );
      }
    });

    it("give the monitor and the playground a policy of their own, framed by no other site", async () => {
      const monitor = await request(server, "/monitor/");
      assert.equal(monitor.status, 200);
      assertHardened(monitor);
      assert.deepEqual(policyOf(monitor).get("script-src"), ["'self'"]);
      const playground = await request(server, "/playground/");
      assert.equal(playground.status, 200);
      assertHardened(playground);
      assert.ok(policyOf(playground).get("script-src")?.includes("'unsafe-eval'"));
      // The pages' policy stays strict beside them.
      assert.deepEqual(policyOf(await request(server, "/play")).get("script-src"), ["'self'"]);
    });

    it("are on the agent process's answers too", async () => {
      const port = PROCESS_PORTS.agentFramework;
      agentProcess = await startAgentProcess(port, server.baseUrl, JWT_SECRET, dataDir);
      const agents = { baseUrl: agentProcess.baseUrl };
      const health = await request(agents, "/health");
      assert.equal(health.status, 200);
      assertHardened(health);
      const refused = await request(agents, "/api/agents");
      assert.equal(refused.status, 401);
      assertHardened(refused);
    });
  });

  describe("of the game server with its addresses taken from the request", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(GENEROUS_LIMITS);
    });
    after(() => server?.stop());

    it("let a page connect to the address it was reached at, over HTTP and WebSocket", async () => {
      const page = await getWithHost("/play", "game.example:8443");
      assert.equal(page.statusCode, 200);
      const connect = /connect-src ([^;]*)/.exec(String(page.headers["content-security-policy"]))?.[1];
      assert.equal(connect, "'self' http://game.example:8443 ws://game.example:8443");
    });

    it("take nothing from a Host header that is no host", async () => {
      const page = await getWithHost("/play", "evil.example;script-src *");
      assert.equal(page.statusCode, 200);
      const policy = String(page.headers["content-security-policy"]);
      assert.match(policy, /connect-src 'self'(;|$)/);
      assert.doesNotMatch(policy, /evil/);
    });
  });
});
