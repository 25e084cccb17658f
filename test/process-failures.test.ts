import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runToExit } from "./support/processes.js";

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Runs `body` in a fresh Node process that logs its failures as the server does. */
function runWithFailureLogging(body: string): Promise<{ code: number | null; output: string }> {
  const script = `
    import { createLogger } from "./src/telemetry/logger.ts";
    import { logProcessFailures } from "./src/server/shutdown.ts";
    logProcessFailures(createLogger("info", "json"));
    ${body}`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_ENV: "development" },
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

/** The JSON log lines of a process's output. */
const logLines = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } });

describe("failures nothing caught", function () {
  this.timeout(30000);

  it("logs an unhandled rejection as JSON and keeps the server running", async () => {
    const { code, output } = await runWithFailureLogging(`
      Promise.reject(new Error("nobody listens"));
      setTimeout(() => { console.log("still running"); process.exit(0); }, 300);`);
    assert.equal(code, 0, output);
    const logged = logLines(output).find((line) => line.msg === "unhandled promise rejection");
    assert.equal(logged?.err?.message, "nobody listens", output);
    assert.match(output, /still running/);
  });

  it("logs an uncaught exception as JSON and exits with 1", async () => {
    const { code, output } = await runWithFailureLogging(`
      setTimeout(() => { throw new Error("boom"); }, 10);
      setTimeout(() => console.log("still running"), 1000);`);
    assert.equal(code, 1, output);
    const logged = logLines(output).find((line) => line.msg === "uncaught exception: exiting");
    assert.equal(logged?.err?.message, "boom", output);
    assert.doesNotMatch(output, /still running/);
  });
});

describe("start-up failures", function () {
  // Each test starts a server process; one that gets as far as its port (an embedded database and its
  // migrations first) takes 9 s alone and took over 30 s beside the rest of the suite on 2 cores.
  this.timeout(60000);

  /** How `npm start` starts the server. */
  const NPM_START = ["src/server/index.ts"];
  /** How hosts that use @colyseus/tools' `listen` load the application. */
  const ARENA_CONFIG = ["--input-type=module", "-e", `await import("./arena.config.ts")`];

  /** Starts the server with `env` alone; resolves with its exit code and stderr. */
  async function failedStart(
    env: Record<string, string>,
    entry = NPM_START,
    prepare?: (dataDir: string) => Promise<void>,
  ): Promise<{ code: number | null; stderr: string }> {
    const dataDir = await mkdtemp(join(tmpdir(), "startup-"));
    try {
      await prepare?.(dataDir);
      return await runToExit({ DATA_DIR: dataDir, PGLITE_STORAGE: "memory", ...env }, entry);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  /** The discard port: nothing serves there. */
  const NOTHING_THERE = "127.0.0.1:9";

  it("names what to fix, without a stack trace, when production finds no manifests to load", async () => {
    const { code, stderr } = await failedStart({
      NODE_ENV: "production",
      PORT: "0",
      PUBLIC_CDN_URL: `http://${NOTHING_THERE}`,
      DATABASE_URL: `postgres://nobody@${NOTHING_THERE}/none`,
      JWT_SECRET: "a-secret-of-at-least-32-characters-long",
      ADMIN_CODE: "an-admin-code-long-enough",
      PUBLIC_IDP_APP_ID: "app",
      IDP_APP_SECRET: "secret",
      IDP_JWKS_URL: "https://idp.example/jwks",
      IDP_ISSUER: "https://idp.example",
    });
    assert.equal(code, 1, stderr);
    assert.match(stderr, new RegExp(`asset host http://${NOTHING_THERE} is unreachable`));
    assert.match(stderr, /Set PUBLIC_CDN_URL/);
    assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
  });

  for (const [how, entry] of [
    ["npm start", NPM_START],
    ["arena.config.ts", ARENA_CONFIG],
  ] as const) {
    it(`names DATABASE_URL, without a stack trace, when the database does not answer (${how})`, async () => {
      const { code, stderr } = await failedStart(
        { PORT: "0", DATABASE_URL: `postgres://nobody@${NOTHING_THERE}/none` },
        [...entry],
      );
      assert.equal(code, 1, stderr);
      // PostgreSQL's own reason, not only the failed query the database layer wraps it in.
      assert.match(stderr, /ECONNREFUSED 127\.0\.0\.1:9\. Check DATABASE_URL/);
      assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
    });
  }

  it("says which database does not exist at DATABASE_URL", async function () {
    const postgresUrl = process.env.TEST_DATABASE_URL;
    if (!postgresUrl) this.skip();
    const url = new URL(postgresUrl);
    url.pathname = "/no_such_database_here";
    const { code, stderr } = await failedStart({ PORT: "0", DATABASE_URL: url.toString() });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /database "no_such_database_here" does not exist\. Check DATABASE_URL/);
  });

  it("refuses a DATABASE_URL that is not a PostgreSQL address", async () => {
    const { code, stderr } = await failedStart({ PORT: "0", DATABASE_URL: "mysql://db/game" });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ address/);
  });

  it("names REDIS_URL, without a stack trace, when Redis does not answer", async () => {
    // The start-up check's own words: without it, the matchmaker's retries end in an ioredis stack trace
    // some 12 s later. (No time is asserted: a start alone took over 15 s beside the suite on 2 cores.)
    const { code, stderr } = await failedStart({ PORT: "0", REDIS_URL: `redis://${NOTHING_THERE}` });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /Cannot reach Redis at REDIS_URL \(127\.0\.0\.1:9: .*ECONNREFUSED/);
    assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
  });

  it("names DATA_DIR, without a stack trace, when the embedded database there cannot be opened", async () => {
    // Another embedded database version's files (PostgreSQL 17's, where PGlite writes 18's).
    const { code, stderr } = await failedStart(
      { PORT: "0", PGLITE_STORAGE: "disk" },
      NPM_START,
      async (dataDir) => {
        await mkdir(join(dataDir, "pglite"));
        await writeFile(join(dataDir, "pglite", "PG_VERSION"), "17\n");
      },
    );
    assert.equal(code, 1, stderr);
    assert.match(stderr, /Cannot open the embedded database in .*pglite: .*set DATA_DIR to another folder/);
    assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
  });

  for (const variable of ["DATA_DIR", "MANIFEST_CACHE_DIR"]) {
    it(`names ${variable}, without a stack trace, when the server cannot write there`, async () => {
      const parent = await mkdtemp(join(tmpdir(), "unwritable-"));
      const notAFolder = join(parent, "a-file");
      await writeFile(notAFolder, "");
      try {
        const { code, stderr } = await failedStart({ PORT: "0", [variable]: notAFolder });
        assert.equal(code, 1, stderr);
        assert.match(stderr, new RegExp(`${variable}: the server cannot write to ${notAFolder}`));
        assert.match(stderr, new RegExp(`or set ${variable} to one`));
        assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
      } finally {
        await rm(parent, { recursive: true, force: true });
      }
    });
  }

  it("says the port is taken, without a stack trace, when something listens on PORT", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const { code, stderr } = await failedStart({ PORT: String(port) });
      assert.equal(code, 1, stderr);
      assert.match(stderr, new RegExp(`Port ${port} is already in use`));
      assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
    } finally {
      taken.close();
    }
  });
});
