// The ports the suites' server processes take, against each other and against the test runner's own:
// two suites on one port fail each other only when the runner happens to put them side by side.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { PROCESS_PORTS } from "./support/processes.js";
import {
  DEFAULT_TEST_PORT,
  MAX_TEST_PROCESSES,
  PORTS_PER_PROCESS,
  portsOf,
  REDIS_PORT_OFFSET,
  refusedPorts,
} from "./support/runner-ports.js";
import { TEST_PORT } from "./support/server.js";

const ROOT = path.resolve(import.meta.dirname, "..");

describe("the test processes' ports", () => {
  const ports = portsOf(PROCESS_PORTS);

  it("gives each suite's server processes and Redis servers ports of their own", () => {
    const seen = new Map<number, string>();
    for (const [where, port] of ports) {
      assert.equal(seen.get(port), undefined, `${where} takes ${port}, as ${seen.get(port)} does`);
      seen.set(port, where);
    }
  });

  it("keeps them within the test process's range, off the test server's port and the runner's Redis", () => {
    for (const [where, port] of ports) {
      const offset = port - TEST_PORT;
      assert.ok(offset > 0 && offset < PORTS_PER_PROCESS, `${where}: TEST_PORT + ${offset}`);
      assert.notEqual(offset, REDIS_PORT_OFFSET, `${where} takes the runner's Redis port`);
    }
  });

  it("keeps every test process's ports, as the runner lays them out by default, off the ports fetch refuses", () => {
    assert.deepEqual(refusedPorts(DEFAULT_TEST_PORT, MAX_TEST_PROCESSES), []);
  });

  it("refuses to start where TEST_PORT and TEST_PROCESSES would put a server on a port fetch refuses", async () => {
    // The fifth process from 3600 puts database-faults' server on 4045.
    const run = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/test.ts"], {
      cwd: ROOT,
      env: { ...process.env, TEST_PORT: "3600", TEST_PROCESSES: "5" },
    }).then(
      () => assert.fail("the runner started"),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(run.code, 1);
    assert.match(run.stderr, /test process 5: databaseFaults on port 4045/);
    assert.match(run.stderr, /TEST_PORT/);
  });
});
