import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { decodeJwt, SignJWT } from "jose";
import { AnonymousAccountSweep } from "../../src/auth/account-sweep.js";
import { STEM_NAMES } from "../../src/auth/generated-names.js";
import {
  ANONYMOUS_AUDIENCE,
  issueAgentToken,
  issueAnonymousToken,
  SERVER_ISSUER,
} from "../../src/auth/tokens.js";
import { CHARACTER_NAME } from "../../src/game/character-names.js";
import { recordingLogger } from "../support/recording-logger.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { WsClient } from "../support/ws-client.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "./support.js";

describe("POST /api/v1/auth/anonymous (anonymous mode)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(GENEROUS_LIMITS);
  });
  after(() => server?.stop());

  it("issues a one-hour token for a new identity whose character can be played at once", async () => {
    const before = Date.now();
    const response = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
    assert.equal(response.status, 201);
    const { token, playerId, expiresAt } = await response.json();
    const lifetime = new Date(expiresAt).getTime() - before;
    assert.ok(lifetime > 59 * 60_000 && lifetime <= 60 * 60_000 + 1000, `lifetime ${lifetime} ms`);
    assert.equal(decodeJwt(token).exp, new Date(expiresAt).getTime() / 1000);

    const player = await request(server, "/api/v1/player", { token });
    assert.equal(player.status, 200);
    assert.equal((await player.json()).id, playerId);
  });

  it("gives every sign-in without a token its own identity", async () => {
    const first = await signInAnonymously(server);
    const second = await signInAnonymously(server);
    assert.notEqual(first.playerId, second.playerId);
  });

  it("renews a still-valid token for the same identity and character", async () => {
    const first = await signInAnonymously(server);
    const renewed = await request(server, "/api/v1/auth/anonymous", { method: "POST", token: first.token });
    assert.equal(renewed.status, 201);
    assert.equal((await renewed.json()).playerId, first.playerId);
  });

  it("renews with the renewal token once the token has run out, and takes that token nowhere else", async () => {
    const signIn = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
    const { playerId, renewalToken, renewalExpiresAt } = await signIn.json();
    const lifetime = new Date(renewalExpiresAt).getTime() - Date.now();
    assert.ok(lifetime > 29 * 24 * 3600_000 && lifetime <= 30 * 24 * 3600_000, `lifetime ${lifetime} ms`);
    // The player was away past its token's hour: the token is refused, the renewal token is not.
    const subject = decodeJwt(renewalToken).sub!;
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(subject)
      .setIssuer(SERVER_ISSUER)
      .setAudience(ANONYMOUS_AUDIENCE)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(server.runtime.jwtSecret);
    await expectError(
      await request(server, "/api/v1/auth/anonymous", { method: "POST", token: expired }),
      401,
      "unauthorized",
    );
    const renewed = await request(server, "/api/v1/auth/anonymous", { method: "POST", token: renewalToken });
    assert.equal(renewed.status, 201, await renewed.clone().text());
    const again = await renewed.json();
    assert.equal(again.playerId, playerId, "the same character");
    assert.equal(
      (await (await request(server, "/api/v1/player", { token: again.token })).json()).id,
      playerId,
    );
    // A renewal token signs nobody in: not on the API, not on /ws.
    await expectError(await request(server, "/api/v1/player", { token: renewalToken }), 401, "unauthorized");
    const refused = await WsClient.connect(server.wsUrl, { header: renewalToken }).then(
      async (client) => {
        await client.close();
        return false;
      },
      () => true,
    );
    assert.ok(refused, "a /ws upgrade with a renewal token is refused");
  });

  it("renews to the same character after days away: the account sweep keeps it while its renewal token lives", async () => {
    const signIn = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
    const { playerId, renewalToken } = await signIn.json();
    // Away nine days, then the server's own sweep of unseen anonymous accounts runs.
    const subject = `anon:${decodeJwt(renewalToken).sub}`;
    await server.runtime.database.db.execute(
      sql`update accounts set last_seen_at = now() - make_interval(days => 9) where subject = ${subject}`,
    );
    const { config, accounts } = server.runtime;
    const retention = config.ANONYMOUS_ACCOUNT_RETENTION_SECONDS;
    const absent = await accounts.absentAnonymous([(await accounts.find(subject))!.id], 8 * 24 * 3600);
    assert.equal(absent.length, 1, "unseen for more than eight days");
    await new AnonymousAccountSweep(accounts, retention, recordingLogger("info").logger).sweep();
    const renewed = await request(server, "/api/v1/auth/anonymous", { method: "POST", token: renewalToken });
    assert.equal(renewed.status, 201, await renewed.clone().text());
    assert.equal((await renewed.json()).playerId, playerId, "the same character, not a new one");
  });

  it("refuses to renew an agent's token with 403: it names no anonymous identity", async () => {
    const owner = await signInAnonymously(server);
    const created = await request(server, "/api/agents", {
      method: "POST",
      token: owner.token,
      body: { name: "Renewer" },
    });
    assert.equal(created.status, 201);
    const agent = await created.json();
    const agentToken = await issueAgentToken(server.runtime.jwtSecret, agent.agentId);
    await expectError(
      await request(server, "/api/v1/auth/anonymous", { method: "POST", token: agentToken }),
      403,
      "forbidden",
    );
  });

  it("refuses to renew a token that is not valid with 401", async () => {
    const { token } = await signInAnonymously(server);
    const tampered = `${token.slice(0, -4)}AAAA`;
    await expectError(
      await request(server, "/api/v1/auth/anonymous", { method: "POST", token: tampered }),
      401,
      "unauthorized",
    );
  });

  it("takes no body: one with anything in it is refused, and no identity is made", async () => {
    const accounts = async () => {
      const counted = await server.runtime.database.db.execute(sql`select count(*)::int as n from accounts`);
      return (counted as unknown as { rows: { n: number }[] }).rows[0]?.n;
    };
    const before = await accounts();
    const signIn = (body: string) => request(server, "/api/v1/auth/anonymous", { method: "POST", body });
    const malformed = await expectError(await signIn("{bad"), 400, "bad_request");
    assert.deepEqual(malformed.details, [{ field: "(body)", message: "the body is not valid JSON" }]);
    // The renewal token goes in Authorization, not in the body: the field is named.
    const misplaced = await expectError(
      await signIn(JSON.stringify({ renewalToken: "x" })),
      400,
      "bad_request",
    );
    assert.deepEqual(
      misplaced.details?.map((detail) => detail.field),
      ["renewalToken"],
    );
    await expectError(await signIn("a".repeat(20_000)), 413, "payload_too_large");
    assert.equal(await accounts(), before, "no identity made");
    // What clients send by habit is taken.
    assert.equal((await signIn("{}")).status, 201);
  });
});

// A server of its own: the embedded database holds the process while it is filled, and a kept-alive
// connection of an earlier test would be reset meanwhile.
describe("POST /api/v1/auth/anonymous with the short generated names all taken", () => {
  let server: TestServer;
  // Kept to say why, should a refusal come: under a loaded machine's test run one /ws upgrade was
  // answered 503, which the server alone can explain.
  const log = recordingLogger("warn");
  before(async () => {
    server = await startTestServer(GENEROUS_LIMITS, { logger: log.logger });
  });
  after(() => server?.stop());

  it("never runs out of generated names: the numbers grow once the short ones are taken", async function () {
    this.timeout(180000);
    // Every 4-digit name of every stem is taken (108,000 characters), as by years of sign-ups.
    const stems = STEM_NAMES.map((stem) => `'${stem}'`).join(", ");
    await server.runtime.database.db.execute(
      sql.raw(`insert into characters (id, name, x, z, health)
          select 'filler-' || stem || n, stem || n, 0, 0, 10
          from unnest(array[${stems}]) as stem, generate_series(1000, 9999) as n
          on conflict do nothing`),
    );
    for (let i = 0; i < 5; i++) {
      const response = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
      assert.equal(response.status, 201, await response.clone().text());
      const { token } = await response.json();
      const player = await (await request(server, "/api/v1/player", { token })).json();
      assert.match(player.name, CHARACTER_NAME);
      assert.match(player.name, /^[A-Za-z]+\d{5,}$/, `${player.name}: a longer number`);
    }
    // A connection without a token is given a character the same way.
    const client = await WsClient.connect(server.wsUrl).catch((error: Error) => {
      const logged = log.lines.map((line) => `${line.msg}${line.err ? `: ${line.err.message}` : ""}`);
      throw new Error(`${error.message}; the server logged: ${logged.join(" / ") || "nothing"}`);
    });
    try {
      const first = await client.first();
      assert.equal(first.event, "player:sync", JSON.stringify(first));
      assert.match((first.data as { name: string }).name, CHARACTER_NAME);
    } finally {
      await client.close();
    }
  });
});

describe("POST /api/v1/auth/anonymous under its own limit (RATE_LIMIT_AUTH_PER_MIN=3)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_AUTH_PER_MIN: "3" });
  });
  after(() => server?.stop());

  it("counts a renewal with a bad token as one attempt, not two", async () => {
    const stranger = new TextEncoder().encode("not this server's secret".padEnd(32, "x"));
    const { token } = await issueAnonymousToken(stranger);
    await expectError(
      await request(server, "/api/v1/auth/anonymous", { method: "POST", token }),
      401,
      "unauthorized",
    );
    for (const attempt of ["second", "third"]) {
      const response = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
      assert.equal(response.status, 201, `the ${attempt} attempt of three`);
    }
    await expectError(
      await request(server, "/api/v1/auth/anonymous", { method: "POST" }),
      429,
      "rate_limited",
    );
  });
});
