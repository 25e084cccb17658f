import assert from "node:assert/strict";
import { once } from "node:events";
import net from "node:net";
import { matchMaker } from "@colyseus/core";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { GENEROUS_LIMITS } from "../api/support.js";
import { startTestServer, TEST_PORT, type TestServer } from "../support/server.js";
import { refusedUpgrade, WsClient } from "../support/ws-client.js";

describe("/ws: authentication at the upgrade", function () {
  this.timeout(30000);
  const open: WsClient[] = [];
  const connect = async (...args: Parameters<typeof WsClient.connect>) => {
    const client = await WsClient.connect(...args);
    open.push(client);
    return client;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
  });

  describe("anonymous mode", () => {
    let server: TestServer;
    before(async () => {
      // Each upgrade here counts as an authentication attempt: more than the default 10 a minute.
      server = await startTestServer({ WORLD_TICK_MS: "100", ...GENEROUS_LIMITS });
    });
    after(() => server?.stop());

    it("answers a plain request, not a WebSocket upgrade, with 426 upgrade_required", async () => {
      const response = await fetch(`${server.baseUrl}/ws`);
      assert.equal(response.status, 426);
      assert.equal(response.headers.get("upgrade"), "websocket");
      assert.equal((await response.json()).error.code, "upgrade_required");
    });

    it("plays the character of a token in the Authorization header", async () => {
      const response = await fetch(`${server.baseUrl}/api/v1/auth/anonymous`, { method: "POST" });
      const { token, playerId } = (await response.json()) as { token: string; playerId: string };
      const client = await connect(server.wsUrl, { header: token });
      const first = await client.first();
      assert.equal(first.event, "player:sync");
      assert.equal(first.data.id, playerId);
      await client.close();
      // HTTP's schemes are case-insensitive: `bearer` names the same character, as REST takes it.
      const lowercase = await WsClient.connect(server.wsUrl, "none", { Authorization: `bearer ${token}` });
      assert.equal((await lowercase.first()).data.id, playerId, "the token's character, not a new one");
      await lowercase.close();
    });

    it("serves the channel at /ws/ too, as PUBLIC_WS_URL may be written and /env.js then publishes it", async () => {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      const client = await connect(`${server.wsUrl}/`, { header: token });
      const first = await client.first();
      assert.equal(first.event, "player:sync");
      await client.close();
    });

    it("takes the token from ?token= too; a second login of the same character replaces the first (4409)", async () => {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      const first = await connect(server.wsUrl, { query: token });
      const firstSync = await first.first();
      const second = await connect(server.wsUrl, { query: token });
      const secondSync = await second.first();
      assert.equal(secondSync.data.id, firstSync.data.id);
      assert.equal((await first.closed).code, 4409);
    });

    it("goes on serving after a client resets its connection while its upgrade is being answered", async () => {
      for (let i = 0; i < 5; i++) {
        const socket = net.connect(TEST_PORT, "127.0.0.1");
        await once(socket, "connect");
        socket.write(
          "GET /ws?token=not-a-token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        );
        socket.resetAndDestroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      const client = await connect(server.wsUrl);
      assert.equal((await client.first()).event, "player:sync");
    });

    it("refuses with 401 a ?token= that names another account than the Authorization header", async () => {
      const [mine, theirs] = [
        await issueAnonymousToken(server.runtime.jwtSecret),
        await issueAnonymousToken(server.runtime.jwtSecret),
      ];
      const refused = await refusedUpgrade(`${server.wsUrl}?token=${encodeURIComponent(theirs.token)}`, {
        header: mine.token,
      });
      assert.equal(refused.status, 401);
      assert.match(JSON.parse(refused.body).error.message, /different accounts/);
      // Two tokens of one account are one identity: let in.
      const renewed = await issueAnonymousToken(server.runtime.jwtSecret, mine.subject);
      const client = await connect(`${server.wsUrl}?token=${encodeURIComponent(renewed.token)}`, {
        header: mine.token,
      });
      assert.equal((await client.first()).event, "player:sync");
    });

    it("gives a connection without a token a fresh temporary identity", async () => {
      const one = await connect(server.wsUrl);
      const other = await connect(server.wsUrl);
      const [oneSync, otherSync] = await Promise.all([one.first(), other.first()]);
      assert.equal(oneSync.event, "player:sync");
      assert.equal(otherSync.event, "player:sync");
      assert.notEqual(oneSync.data.id, otherSync.data.id);
    });

    it("plays the character named by ?characterId=, and refuses another account's", async () => {
      const signIn = async () =>
        (await (await fetch(`${server.baseUrl}/api/v1/auth/anonymous`, { method: "POST" })).json()) as {
          token: string;
          playerId: string;
        };
      const [mine, theirs] = [await signIn(), await signIn()];
      const own = await connect(`${server.wsUrl}?characterId=${mine.playerId}`, { header: mine.token });
      assert.equal((await own.first()).data.id, mine.playerId);
      const other = await connect(`${server.wsUrl}?characterId=${theirs.playerId}`, { header: mine.token });
      const refusal = await other.first();
      assert.deepEqual(refusal, {
        event: "error",
        data: { code: "join_failed", message: "that character belongs to another account", event: null },
      });
      assert.equal((await other.closed).code, 4002);
    });

    it("refuses a ?characterId= that no character can have (a NUL byte) as unknown, quoting no query", async () => {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      const client = await connect(`${server.wsUrl}?characterId=%00`, { header: token });
      const refusal = await client.first();
      assert.deepEqual([refusal.event, refusal.data.code], ["error", "join_failed"]);
      assert.match(refusal.data.message, /^no character/);
      assert.equal((await client.closed).code, 4002);
    });

    // Reading the character fails in the room's onAuth, loading it in its onJoin.
    for (const step of ["summary", "load"] as const) {
      it(`tells a join whose character ${step} fails in the database to retry, not why it failed`, async () => {
        const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
        const { characters } = server.runtime;
        const original = characters[step];
        characters[step] = async () => {
          throw new Error('Failed query: select "password" from "secrets"');
        };
        try {
          const client = await connect(server.wsUrl, { header: token });
          const refusal = await client.first();
          assert.deepEqual([refusal.event, refusal.data.code], ["error", "unavailable"]);
          assert.doesNotMatch(refusal.data.message, /select|password|secrets/i);
          assert.equal((await client.closed).code, 4503, "a close the client retries after, with back-off");
        } finally {
          characters[step] = original as never;
        }
      });
    }

    it("tells a join that fails in the matchmaker only that it failed, not why", async () => {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      const { driver } = matchMaker;
      const findOne = driver.findOne;
      // The seat's lookup of the world by id (the world's own lookup, by name, still works).
      driver.findOne = async (conditions, ...rest) => {
        if ("roomId" in conditions) throw new Error('Failed query: select "password" from "secrets"');
        return findOne.call(driver, conditions, ...rest);
      };
      try {
        const client = await connect(server.wsUrl, { header: token });
        const refusal = await client.first();
        assert.deepEqual([refusal.event, refusal.data.code], ["error", "join_failed"]);
        assert.doesNotMatch(refusal.data.message, /select|password|secrets/i);
        assert.equal((await client.closed).code, 4002);
      } finally {
        driver.findOne = findOne;
      }
    });

    it("refuses an invalid token with HTTP 401", async () => {
      const refused = await refusedUpgrade(server.wsUrl, { header: "not.a.token" });
      assert.equal(refused.status, 401);
      assert.equal(refused.challenge, "Bearer");
      assert.equal(JSON.parse(refused.body).error.code, "unauthorized");
    });
  });

  describe("with an identity provider configured", () => {
    const APP_ID = "tileworld-ws-test";
    const ISSUER = "https://auth.idp.test";
    let server: TestServer;
    let provider: CryptoKeyPair;
    const providerToken = (subject: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "RS256" })
        .setSubject(subject)
        .setIssuer(ISSUER)
        .setAudience(APP_ID)
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(provider.privateKey);

    before(async () => {
      provider = await generateKeyPair("RS256");
      server = await startTestServer({
        WORLD_TICK_MS: "100",
        PUBLIC_IDP_APP_ID: APP_ID,
        IDP_VERIFICATION_KEY: await exportSPKI(provider.publicKey),
        IDP_ISSUER: ISSUER,
      });
    });
    after(() => server?.stop());

    it("refuses an upgrade without a token with HTTP 401", async () => {
      const refused = await refusedUpgrade(server.wsUrl);
      assert.equal(refused.status, 401);
      assert.equal(JSON.parse(refused.body).error.code, "unauthorized");
    });

    it("refuses the server's own anonymous tokens with HTTP 401", async () => {
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      assert.equal((await refusedUpgrade(server.wsUrl, { query: token })).status, 401);
    });

    it("accepts the provider's token, in the header or in ?token=", async () => {
      const token = await providerToken("ws-user-1");
      const byHeader = await connect(server.wsUrl, { header: token });
      const sync = await byHeader.first();
      assert.equal(sync.event, "player:sync");
      await byHeader.close();
      const byQuery = await connect(server.wsUrl, { query: token });
      assert.equal((await byQuery.first()).data.id, sync.data.id);
    });
  });
});
