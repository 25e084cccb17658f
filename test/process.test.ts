import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AccountRepository } from "../src/db/accounts.js";
import { openDatabase } from "../src/db/database.js";

const PORT = 5601;

interface RunningServer {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function startServer(dataDir: string): Promise<RunningServer> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/index.ts"], {
    env: { PATH: process.env.PATH, PORT: String(PORT), DATA_DIR: dataDir, SKIP_MANIFESTS: "false" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    const healthy = await fetch(`http://127.0.0.1:${PORT}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { child, output: () => output, exited };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`server did not become healthy:\n${output}`);
}

describe("server process", function () {
  this.timeout(90000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tileworld-data-"));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("shuts down cleanly on SIGTERM and keeps its data across a restart", async () => {
    const first = await startServer(dataDir);
    first.child.kill("SIGTERM");
    assert.equal(await first.exited, 0, first.output());
    assert.match(first.output(), /shutdown complete/);

    const handle = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
    const created = await new AccountRepository(handle.db).findOrCreate("anon:restart-check", "anonymous");
    await handle.close();

    const second = await startServer(dataDir);
    second.child.kill("SIGINT");
    assert.equal(await second.exited, 0, second.output());

    const reopened = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
    const found = await new AccountRepository(reopened.db).get(created.id);
    await reopened.close();
    assert.equal(found?.subject, "anon:restart-check");
  });
});
