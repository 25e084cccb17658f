import assert from "node:assert/strict";
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, MatchMakeError } from "@colyseus/sdk";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { GENEROUS_LIMITS } from "./support.js";

const SEAT_PATH = "/matchmake/joinOrCreate/world";

describe("the matchmaker's routes (SDK seat requests)", () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer(GENEROUS_LIMITS);
    token = (await issueAnonymousToken(server.runtime.jwtSecret)).token;
  });
  after(() => server?.stop());

  it("refuse a body over 16 kB with 413 in the matchmaker's error shape, as the REST API does", async () => {
    const response = await fetch(`${server.baseUrl}${SEAT_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ padding: "x".repeat(20_000) }),
    });
    assert.equal(response.status, 413);
    assert.deepEqual(await response.json(), { code: 413, error: "the body is too large" });
  });

  it("answer a body that never ends once it is over the limit, without reading the rest", async () => {
    const req = http.request(`${server.baseUrl}${SEAT_PATH}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        "transfer-encoding": "chunked",
      },
    });
    const answer = new Promise<number | undefined>((resolve) => {
      req.on("response", (response) => resolve(response.statusCode));
      req.on("error", () => resolve(undefined));
    });
    req.write(`{"padding":"`);
    // 64 kB every 10 ms, and no end: a server that reads it all before answering never answers.
    const chunk = "x".repeat(64 * 1024);
    const feed = setInterval(() => req.write(chunk), 10);
    try {
      assert.equal(await Promise.race([answer, sleep(5000).then(() => "no answer")]), 413);
    } finally {
      clearInterval(feed);
      req.destroy();
    }
  });

  it("refuse a characterId that no character can have (a NUL byte) as unknown, quoting no query", async () => {
    const sdk = new Client(server.baseUrl);
    sdk.auth.token = token;
    await assert.rejects(
      sdk.joinOrCreate("world", { characterId: "\0" }),
      (error: unknown) =>
        error instanceof MatchMakeError && error.code === 404 && /^no character/.test(error.message),
    );
  });

  // Reading the character fails in the room's onAuth (the seat request), loading it in its onJoin.
  for (const step of ["summary", "load"] as const) {
    it(`tell a join whose character ${step} the database fails to give to retry, not why`, async () => {
      const sdk = new Client(server.baseUrl);
      sdk.auth.token = token;
      const { characters } = server.runtime;
      const original = characters[step];
      characters[step] = async () => {
        throw new Error('Failed query: select "password" from "secrets"');
      };
      try {
        await assert.rejects(
          sdk.joinOrCreate("world"),
          (error: unknown) =>
            error instanceof MatchMakeError &&
            error.code === 503 &&
            /try again/.test(error.message) &&
            !/select|password|secrets/i.test(error.message),
        );
      } finally {
        characters[step] = original as never;
      }
    });
  }
});
