import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

describe("API errors", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ...GENEROUS_LIMITS, JWT_SECRET: "a-secret-that-must-never-leak" });
  });
  after(() => server?.stop());

  it("answers unknown /api paths with 404 and the contract's body", async () => {
    const error = await expectError(await request(server, "/api/v1/nothing-here"), 404, "not_found");
    assert.match(error.message, /\/api\/v1\/nothing-here/);
    await expectError(await request(server, "/api/v1/world", { method: "DELETE" }), 404, "not_found");
  });

  it("answers every unmatched path and method, outside /api too, with 404 and the contract's body", async () => {
    const unmatched: [string, string][] = [
      ["POST", "/manifests/npcs.json"],
      ["POST", "/health"],
      ["GET", "/models/tree.glb"],
      // GET / is the landing page; nothing else is there.
      ["POST", "/"],
      ["GET", "/web/"],
    ];
    for (const [method, path] of unmatched) {
      const response = await request(server, path, { method });
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/, `${method} ${path}`);
      const error = await expectError(response, 404, "not_found");
      assert.ok(error.message.includes(path), error.message);
    }
  });

  it("answers a path parameter that is not valid percent-encoding with 400 naming the path, not 500", async () => {
    const { token } = await signInAnonymously(server);
    const error = await expectError(
      await request(server, "/api/characters/%ZZ/skills", { token }),
      400,
      "bad_request",
    );
    assert.match(error.message, /%ZZ/);
    // a bad_request lists the offending fields, here the path.
    assert.deepEqual(error.details, [{ field: "(path)", message: error.message }]);
  });

  it("answers JSON that is malformed with 400, and JSON that is no object with 400 naming the body", async () => {
    const { token } = await signInAnonymously(server);
    const malformed = await expectError(
      await request(server, "/api/v1/player", { token, body: '{"name":' }),
      400,
      "bad_request",
    );
    assert.match(malformed.message, /not valid JSON/);
    assert.deepEqual(malformed.details, [{ field: "(body)", message: malformed.message }]);
    for (const body of ["null", "5", "true", '"Bobby"', "[]"]) {
      const error = await expectError(
        await request(server, "/api/v1/player", { token, body }),
        400,
        "bad_request",
      );
      assert.deepEqual(
        error.details?.map(({ field }) => field),
        ["(body)"],
        `${body}: ${JSON.stringify(error)}`,
      );
    }
  });

  it("judges a request by its path and its caller before its body: 404, then 401, then 400 or 413", async () => {
    const malformed = '{"name":';
    const tooLarge = JSON.stringify({ name: "x".repeat(20 * 1024) });
    for (const body of [malformed, tooLarge]) {
      await expectError(await request(server, "/api/nothing-here", { body }), 404, "not_found");
      await expectError(await request(server, "/api/v1/player", { body }), 401, "unauthorized");
      await expectError(
        await request(server, "/api/v1/player", { body, token: "not-a-token" }),
        401,
        "unauthorized",
      );
    }
    const { token } = await signInAnonymously(server);
    await expectError(
      await request(server, "/api/v1/player", { body: malformed, token }),
      400,
      "bad_request",
    );
    await expectError(
      await request(server, "/api/v1/player", { body: tooLarge, token }),
      413,
      "payload_too_large",
    );
  });

  for (const encoding of ["gzip", "deflate", "br"]) {
    it(`answers a body that is not valid ${encoding} with 400 naming the body, not 500`, async () => {
      const { token } = await signInAnonymously(server);
      const response = await request(server, "/api/v1/player", {
        token,
        body: '{"name":"Not Compressed"}',
        headers: { "content-encoding": encoding },
      });
      const error = await expectError(response, 400, "bad_request");
      assert.deepEqual(error.details, [{ field: "(body)", message: error.message }]);
    });
  }

  it("refuses a body field the endpoint does not take, naming it, and changes nothing", async () => {
    const { token } = await signInAnonymously(server);
    const unknownField = async (path: string, body: unknown, field: string) => {
      const error = await expectError(await request(server, path, { body, token }), 400, "bad_request");
      assert.deepEqual(error.details, [{ field, message: "not a field of this request" }], path);
    };
    await unknownField("/api/v1/player", { name: "Spare Key", colour: "red" }, "colour");
    const player = await (await request(server, "/api/v1/player", { token })).json();
    assert.notEqual(player.name, "Spare Key", "not renamed");
    // A misspelt world would otherwise put the agent in world 1.
    await unknownField("/api/agents", { name: "Typo Town", wrold: 2 }, "wrold");
    assert.deepEqual((await (await request(server, "/api/agents", { token })).json()).agents, []);

    const created = await request(server, "/api/agents", { body: { name: "Exact One" }, token });
    assert.equal(created.status, 201, await created.clone().text());
    const { agentId } = await created.json();
    await unknownField(`/api/agents/${agentId}/goal`, { type: "combat", targt: 500 }, "targt");
    const { goal } = await (await request(server, `/api/agents/${agentId}/goal`, { token })).json();
    assert.notEqual(goal?.type, "combat", "a gathering goal of its own choice, not the refused one");
    await unknownField(`/api/agents/${agentId}/message`, { text: "hello", ["__proto__"]: {} }, "__proto__");
  });

  it("turns a failure inside the server into a 500 that names no cause", async () => {
    const { token } = await signInAnonymously(server);
    await server.runtime.database.close();
    const response = await request(server, "/api/v1/player", { token });
    assert.equal(response.status, 500);
    const text = await response.text();
    assert.deepEqual(JSON.parse(text), { error: { code: "internal", message: "internal server error" } });
    assert.doesNotMatch(text, /select|accounts|at .*\.ts|a-secret/i);
  });
});
