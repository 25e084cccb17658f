import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Runs `body` in a fresh Node process that logs its failures as the server does. */
function runWithFailureLogging(body: string): Promise<{ code: number | null; output: string }> {
  const script = `
    import { createLogger } from "./src/logger.ts";
    import { logProcessFailures } from "./src/shutdown.ts";
    logProcessFailures(createLogger("info", false));
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
