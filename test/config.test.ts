import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { ANONYMOUS_RENEWAL_SECONDS } from "../src/auth/tokens.js";
import { ConfigError, loadConfig } from "../src/config/config.js";
import { REQUIRED_IN_PRODUCTION } from "../src/config/production.js";

describe("configuration", () => {
  it("runs with no variables at all: port 5555, development, embedded database, the interface's limits", () => {
    const config = loadConfig({});
    assert.equal(config.PORT, 5555);
    assert.equal(config.NODE_ENV, "development");
    assert.equal(config.production, false);
    assert.equal(config.DATABASE_URL, undefined);
    assert.equal(config.SKIP_MANIFESTS, false);
    assert.equal(config.identityProvider, false);
    assert.equal(config.RATE_LIMIT_REST_PER_MIN, 100);
    assert.equal(config.RATE_LIMIT_AUTH_PER_MIN, 10);
    assert.equal(config.RATE_LIMIT_WS_PER_SEC, 60);
    assert.equal(config.dataDir, path.resolve("data"));
  });

  it("reads overrides and flags", () => {
    const config = loadConfig({
      PORT: "7000",
      SKIP_MANIFESTS: "true",
      RATE_LIMIT_WS_PER_SEC: "5",
      DATA_DIR: "/tmp/x",
    });
    assert.equal(config.PORT, 7000);
    assert.equal(config.SKIP_MANIFESTS, true);
    assert.equal(config.RATE_LIMIT_WS_PER_SEC, 5);
    assert.equal(config.dataDir, "/tmp/x");
  });

  it("on Colyseus Cloud, takes its Redis and trusts its one proxy unless told otherwise", () => {
    const cloud = loadConfig({ COLYSEUS_CLOUD: "1", REDIS_URI: "redis://cloud-redis:6379" });
    assert.equal(cloud.REDIS_URL, "redis://cloud-redis:6379");
    assert.equal(cloud.TRUST_PROXY, 1);
    const told = loadConfig({
      COLYSEUS_CLOUD: "1",
      REDIS_URI: "redis://cloud-redis:6379",
      REDIS_URL: "redis://mine:6379",
      TRUST_PROXY: "2",
    });
    assert.equal(told.REDIS_URL, "redis://mine:6379");
    assert.equal(told.TRUST_PROXY, 2);
    const elsewhere = loadConfig({ REDIS_URI: "redis://cloud-redis:6379" });
    assert.equal(elsewhere.REDIS_URL, undefined);
    assert.equal(elsewhere.TRUST_PROXY, 0);
  });

  it("refuses malformed values and names them", () => {
    assert.throws(
      () => loadConfig({ PORT: "eighty" }),
      (error: Error) => /PORT/.test(error.message),
    );
    assert.throws(() => loadConfig({ PUBLIC_APP_URL: "not a url" }), /PUBLIC_APP_URL/);
  });

  it("takes only http:// and https:// addresses, and model bounds a provider and a timer can keep", () => {
    // Without a scheme, "localhost:11434/v1" reads as a URL of the scheme "localhost:".
    for (const url of ["localhost:11434/v1", "ftp://models.example/v1"])
      assert.throws(
        () => loadConfig({ LOCAL_MODEL_URL: url }),
        /LOCAL_MODEL_URL: must be an http:\/\/ or https:\/\/ address/,
      );
    // The agent process's game server: taken as it was, it played on nothing and answered every call 503.
    for (const url of ["localhost:5555", "ftp://127.0.0.1:5555"])
      assert.throws(
        () => loadConfig({ GAME_SERVER_URL: url }, "agents"),
        /GAME_SERVER_URL: must be an http:\/\/ or https:\/\/ address/,
      );
    assert.equal(
      loadConfig({ LOCAL_MODEL_URL: "http://127.0.0.1:11434/v1" }).LOCAL_MODEL_URL,
      "http://127.0.0.1:11434/v1",
    );
    // Node's timers take at most 2^31 - 1 ms: a longer one fires at once.
    assert.throws(() => loadConfig({ AGENT_MODEL_TIMEOUT_MS: "3000000000" }), /AGENT_MODEL_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ AGENT_MODEL_MAX_TOKENS: "100000000" }), /AGENT_MODEL_MAX_TOKENS/);
    assert.equal(loadConfig({ AGENT_MODEL_TIMEOUT_MS: "600000" }).AGENT_MODEL_TIMEOUT_MS, 600_000);
  });

  it("refuses a timer longer than Node keeps, which would fire every millisecond instead", () => {
    // WS_PING_MS=2147483648 pinged every millisecond and cut every /ws player within moments.
    for (const name of [
      "WS_PING_MS",
      "DATABASE_QUERY_TIMEOUT_MS",
      "RATE_LIMIT_WINDOW_MS",
      "WS_LOGIN_MAX_STALL_MS",
    ])
      assert.throws(
        () => loadConfig({ [name]: String(2 ** 31) }),
        new RegExp(`${name}: must be at most 2147483647 ms`),
      );
    assert.throws(() => loadConfig({ RECONNECT_SECONDS: "2147484" }), /RECONNECT_SECONDS: must be at most/);
    assert.equal(loadConfig({ WS_PING_MS: String(2 ** 31 - 1) }).WS_PING_MS, 2 ** 31 - 1);
    assert.equal(loadConfig({ RECONNECT_SECONDS: "2147483" }).RECONNECT_SECONDS, 2_147_483);
  });

  it("keeps anonymous accounts as long as their renewal token by default, and no shorter than their token", () => {
    assert.equal(loadConfig({}).ANONYMOUS_ACCOUNT_RETENTION_SECONDS, ANONYMOUS_RENEWAL_SECONDS);
    assert.equal(
      loadConfig({ ANONYMOUS_ACCOUNT_RETENTION_SECONDS: "0" }).ANONYMOUS_ACCOUNT_RETENTION_SECONDS,
      0,
    );
    assert.throws(
      () => loadConfig({ ANONYMOUS_ACCOUNT_RETENTION_SECONDS: "3600" }),
      /ANONYMOUS_ACCOUNT_RETENTION_SECONDS.*at least 7200/,
    );
  });

  it("bounds database queries by default, and refuses a query timeout not longer than the statement timeout", () => {
    const defaults = loadConfig({});
    assert.deepEqual(
      [
        defaults.DATABASE_STATEMENT_TIMEOUT_MS,
        defaults.DATABASE_QUERY_TIMEOUT_MS,
        defaults.DATABASE_KEEPALIVE_MS,
      ],
      [5000, 10_000, 10_000],
    );
    assert.throws(
      () => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "8000", DATABASE_QUERY_TIMEOUT_MS: "8000" }),
      /DATABASE_STATEMENT_TIMEOUT_MS \(8000\) is not shorter than DATABASE_QUERY_TIMEOUT_MS/,
    );
  });

  it("takes an empty or blank value as unset, whatever the variable", () => {
    const blank = Object.fromEntries(
      [
        "PORT",
        "DATA_DIR",
        "NODE_ENV",
        "LOG_LEVEL",
        "PGLITE_STORAGE",
        "PRODUCTION_CDN_URL",
        "RATE_LIMIT_WS_PER_SEC",
        "WORLD_TICK_MS",
        "RECONNECT_SECONDS",
      ].map((name, i) => [name, i % 2 === 0 ? "" : "  "]),
    );
    assert.deepEqual(loadConfig(blank), loadConfig({}));
    assert.equal(loadConfig(blank).RECONNECT_SECONDS, 30);
  });

  it("refuses an AGENT_MODEL whose provider is not configured, naming the variable to set", () => {
    assert.throws(() => loadConfig({ AGENT_MODEL: "anthropic:claude-test" }), /ANTHROPIC_API_KEY is not set/);
    assert.throws(() => loadConfig({ AGENT_MODEL: "gpt-4o" }), /AGENT_MODEL: must be openai:<model>/);
    const config = loadConfig({
      AGENT_MODEL: "local:llama3.2",
      LOCAL_MODEL_URL: "http://127.0.0.1:11434/v1",
    });
    assert.equal(config.AGENT_MODEL, "local:llama3.2");
  });

  it("takes an empty list as empty, so that a group of origins can be switched off", () => {
    const config = loadConfig({ CORS_PREVIEW_HOST_SUFFIXES: "", CORS_PARTNER_ORIGINS: " " });
    assert.deepEqual([config.CORS_PREVIEW_HOST_SUFFIXES, config.CORS_PARTNER_ORIGINS], [[], []]);
    assert.ok(loadConfig({}).CORS_PREVIEW_HOST_SUFFIXES.length > 0, "the defaults when unset");
  });

  it("takes as allowed origins only origins, which a browser's Origin can match", () => {
    // Taken, these matched no browser: a page on https://app.example.com was refused without a word.
    for (const entry of ["app.example.com", "*", "https://*.example.com", "https://app.example.com/play"])
      assert.throws(
        () => loadConfig({ CORS_ALLOWED_ORIGINS: `https://ok.example, ${entry}` }),
        new RegExp(`CORS_ALLOWED_ORIGINS.*${entry.replace(/[.*/]/g, "\\$&")} is not an origin`),
      );
    assert.throws(() => loadConfig({ CORS_PARTNER_ORIGINS: "crazygames.com" }), /CORS_PARTNER_ORIGINS/);
    assert.deepEqual(
      loadConfig({ CORS_ALLOWED_ORIGINS: "https://app.example.com, http://localhost:3000/" })
        .CORS_ALLOWED_ORIGINS,
      ["https://app.example.com", "http://localhost:3000/"],
    );
  });

  it("takes as PUBLIC_WS_URL only a ws:// or wss:// address ending in /ws", () => {
    for (const url of ["wss://game.example/ws", "ws://localhost:5555/ws", "wss://game.example/play/ws/"])
      assert.equal(loadConfig({ PUBLIC_WS_URL: url }).PUBLIC_WS_URL, url);
    assert.throws(
      () => loadConfig({ PUBLIC_WS_URL: "https://game.example/ws" }),
      /PUBLIC_WS_URL: must be a ws/,
    );
    assert.throws(
      () => loadConfig({ PUBLIC_WS_URL: "wss://game.example" }),
      /PUBLIC_WS_URL: must end in \/ws/,
    );
  });

  it("needs a key source besides the application id before it calls an identity provider configured", () => {
    assert.equal(loadConfig({ PUBLIC_IDP_APP_ID: "app" }).identityProvider, false);
    assert.equal(
      loadConfig({
        PUBLIC_IDP_APP_ID: "app",
        IDP_JWKS_URL: "https://idp.test/jwks",
        IDP_ISSUER: "https://idp.test",
      }).identityProvider,
      true,
    );
  });

  it("refuses an identity provider without IDP_ISSUER, so tokens of any issuer are never accepted", () => {
    const keySources = [
      { IDP_JWKS_URL: "https://idp.test/jwks" },
      { IDP_VERIFICATION_KEY: "-----BEGIN PUBLIC KEY-----" },
    ];
    for (const keySource of keySources) {
      assert.throws(
        () => loadConfig({ PUBLIC_IDP_APP_ID: "app", ...keySource }),
        (error: Error) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /IDP_ISSUER/);
          assert.match(error.message, /\biss\b/, "says what to set it to");
          return true;
        },
      );
    }
  });

  it("refuses production without its required variables, naming every one in one message", () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: "production" }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        for (const name of [
          ...REQUIRED_IN_PRODUCTION,
          "IDP_JWKS_URL or IDP_VERIFICATION_KEY",
          "IDP_ISSUER",
        ]) {
          assert.match(error.message, new RegExp(name));
        }
        return true;
      },
    );
    const complete = {
      NODE_ENV: "production",
      DATABASE_URL: "postgres://db/game",
      JWT_SECRET: "a-secret-of-at-least-32-bytes-long!",
      ADMIN_CODE: "an-admin-code-long-enough",
      PUBLIC_IDP_APP_ID: "app",
      IDP_APP_SECRET: "secret",
      IDP_JWKS_URL: "https://idp.test/jwks",
      IDP_ISSUER: "https://idp.test",
    };
    assert.equal(loadConfig(complete).production, true);
    // A malformed value does not hide the missing ones: both are named, in one message.
    assert.throws(
      () => loadConfig({ NODE_ENV: "production", PUBLIC_CDN_URL: "cdn.example.com" }),
      (error: Error) => {
        assert.match(error.message, /PUBLIC_CDN_URL: must be an http:\/\/ or https:\/\/ address/);
        for (const name of REQUIRED_IN_PRODUCTION) assert.match(error.message, new RegExp(name));
        return true;
      },
    );
    assert.throws(() => loadConfig({ ...complete, ADMIN_CODE: "" }), /ADMIN_CODE/);
    assert.throws(() => loadConfig({ ...complete, IDP_ISSUER: "" }), /IDP_ISSUER/);
  });

  it("asks a production agent process only for the game server's secret and address", () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: "production" }, "agents"),
      (error: Error) => {
        assert.match(error.message, /not set: JWT_SECRET, GAME_SERVER_URL\./);
        assert.doesNotMatch(error.message, /DATABASE_URL|ADMIN_CODE|IDP/);
        return true;
      },
    );
    const agents = loadConfig(
      {
        NODE_ENV: "production",
        JWT_SECRET: "a-secret-of-at-least-32-bytes-long!",
        GAME_SERVER_URL: "https://game.example.com",
      },
      "agents",
    );
    assert.equal(agents.production, true);
    assert.throws(
      () =>
        loadConfig(
          { NODE_ENV: "production", JWT_SECRET: "short", GAME_SERVER_URL: "https://g.example" },
          "agents",
        ),
      /JWT_SECRET has 5 bytes/,
    );
  });

  it("refuses AGENTS names no character may have, doubled spaces included", () => {
    assert.deepEqual(loadConfig({ AGENTS: "Warden, Mod Bob" }).AGENTS, ["Warden", "Mod Bob"]);
    assert.throws(
      () => loadConfig({ AGENTS: "Warden,Mod  Bob,x" }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /AGENTS names "Mod {2}Bob", "x"/);
        return true;
      },
    );
  });

  it("refuses production with a JWT_SECRET under 32 bytes or an ADMIN_CODE under 12 characters", () => {
    const complete = {
      NODE_ENV: "production",
      DATABASE_URL: "postgres://db/game",
      JWT_SECRET: "x".repeat(32),
      ADMIN_CODE: "y".repeat(12),
      PUBLIC_IDP_APP_ID: "app",
      IDP_APP_SECRET: "secret",
      IDP_JWKS_URL: "https://idp.test/jwks",
      IDP_ISSUER: "https://idp.test",
    };
    assert.equal(loadConfig(complete).production, true);
    assert.throws(
      () => loadConfig({ ...complete, JWT_SECRET: "a", ADMIN_CODE: "1" }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /JWT_SECRET has 1 bytes, fewer than 32/);
        assert.match(error.message, /ADMIN_CODE has 1 characters, fewer than 12/);
        return true;
      },
    );
    assert.throws(() => loadConfig({ ...complete, JWT_SECRET: "x".repeat(31) }), /JWT_SECRET has 31 bytes/);
    assert.throws(() => loadConfig({ ...complete, ADMIN_CODE: "y".repeat(11) }), /ADMIN_CODE has 11/);
    assert.throws(
      () => loadConfig({ ...complete, METRICS_TOKEN: "short" }),
      /METRICS_TOKEN has 5 characters/,
    );
    assert.equal(loadConfig({ ...complete, METRICS_TOKEN: "m".repeat(12) }).production, true);
    // A missing secret and a weak one are both named, in one message.
    assert.throws(
      () => loadConfig({ ...complete, DATABASE_URL: "", ADMIN_CODE: "short" }),
      (error: Error) => {
        assert.match(error.message, /DATABASE_URL/);
        assert.match(error.message, /ADMIN_CODE has 5 characters/);
        return true;
      },
    );
    // Development keeps its short test values.
    assert.equal(loadConfig({ JWT_SECRET: "s", ADMIN_CODE: "a" }).production, false);
  });

  it("makes the server process exit non-zero with that message", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/server/index.ts"], {
      env: { PATH: process.env.PATH, NODE_ENV: "production" },
      encoding: "utf8",
      timeout: 15000,
    });
    assert.notEqual(result.status, 0);
    for (const name of REQUIRED_IN_PRODUCTION) assert.match(result.stderr, new RegExp(name));
  });

  it("refuses a scaled-out production process without PUBLIC_ADDRESS, naming it with every other missing variable", () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: "production", REDIS_URL: "redis://shared:6379" }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        for (const name of ["PUBLIC_ADDRESS", "JWT_SECRET", "DATABASE_URL"])
          assert.match(error.message, new RegExp(name));
        return true;
      },
    );
    const complete = {
      NODE_ENV: "production",
      DATABASE_URL: "postgres://db/game",
      JWT_SECRET: "a secret of thirty-two bytes or more",
      ADMIN_CODE: "a long admin code",
      PUBLIC_IDP_APP_ID: "app",
      IDP_APP_SECRET: "secret",
      IDP_JWKS_URL: "https://idp.test/jwks",
      IDP_ISSUER: "https://idp.test",
      REDIS_URL: "redis://shared:6379",
    };
    assert.throws(() => loadConfig(complete), /PUBLIC_ADDRESS/);
    assert.equal(
      loadConfig({ ...complete, PUBLIC_ADDRESS: "10.0.0.5:5555" }).PUBLIC_ADDRESS,
      "10.0.0.5:5555",
    );
    // Colyseus Cloud gives each process its address itself.
    assert.equal(loadConfig({ ...complete, COLYSEUS_CLOUD: "1" }).production, true);
  });

  it("in development with REDIS_URL, takes this host and port for PUBLIC_ADDRESS, and says it chose it", () => {
    const chosen = loadConfig({ REDIS_URL: "redis://shared:6379", PORT: "4100", NODE_APP_INSTANCE: "2" });
    assert.equal(chosen.PUBLIC_ADDRESS, `${os.hostname()}:4102`);
    assert.equal(chosen.publicAddressChosen, true);
    const told = loadConfig({ REDIS_URL: "redis://shared:6379", PUBLIC_ADDRESS: "game-1:5555" });
    assert.deepEqual([told.PUBLIC_ADDRESS, told.publicAddressChosen], ["game-1:5555", false]);
    assert.equal(loadConfig({}).PUBLIC_ADDRESS, undefined, "alone, a process needs no address");
  });

  it("gives each pm2 instance its own PUBLIC_ADDRESS through {port}, and refuses one they would share", () => {
    const scaled = { REDIS_URL: "redis://shared:6379", PORT: "4100" };
    const instance = (n: string, address: string) =>
      loadConfig({ ...scaled, NODE_APP_INSTANCE: n, PUBLIC_ADDRESS: address });
    assert.deepEqual(
      [instance("0", "10.0.0.5:{port}"), instance("3", "10.0.0.5:{port}")].map((c) => [
        c.PUBLIC_ADDRESS,
        c.publicAddressChosen,
      ]),
      [
        ["10.0.0.5:4100", false],
        ["10.0.0.5:4103", false],
      ],
    );
    assert.equal(instance("0", "10.0.0.5:4100").PUBLIC_ADDRESS, "10.0.0.5:4100", "the first instance alone");
    assert.throws(
      () => instance("1", "10.0.0.5:4100"),
      /PUBLIC_ADDRESS \(10\.0\.0\.5:4100\) is the same for every pm2 instance .*put \{port\} where its port goes/,
    );
  });
});
