import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { PROCESS_PORTS } from "../support/processes.js";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");

/** `npm run agents:exam` as a person runs it, on a port of its own; its table and what led to it. */
async function exam(port: number): Promise<{ table: string; progress: string[] }> {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "bench/agents-exam.ts", "--ticks", "300", "--port", String(port)],
    { cwd: ROOT, timeout: 120_000, env: { ...process.env, LOG_LEVEL: "error" } },
  );
  const lines = stdout.split("\n");
  return {
    table: lines.slice(lines.findIndex((line) => line.startsWith("agent "))).join("\n"),
    progress: lines.filter((line) => line.startsWith("tick ")),
  };
}

describe("the agents exam (npm run agents:exam)", function () {
  this.timeout(180_000);

  it("repeats, tick for tick, when two run side by side on a busy machine", async () => {
    const [first, second] = await Promise.all([exam(PROCESS_PORTS.exams[0]), exam(PROCESS_PORTS.exams[1])]);
    assert.match(first.table, /Exam Fighter +combat/);
    assert.ok(first.progress.length >= 2, first.progress.join("\n"));
    assert.deepEqual(second.progress, first.progress);
    assert.equal(second.table, first.table);
  });
});
