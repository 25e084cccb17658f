import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "./support/server.js";

const run = promisify(execFile);

/**
 * The examples are run from a copy two folders down, where the repository's node_modules still resolve
 * their packages but `../src` is nothing: an example that reached into the server's source would fail.
 */
let copy: string;

/** Runs an example to its end against the test server; what it printed. */
async function runExample(file: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [
    "--import",
    "tsx",
    path.join(copy, file),
    ...args,
    "--seconds",
    "2",
  ]);
  return stdout;
}

describe("examples", function () {
  this.timeout(90000);
  let server: TestServer;

  before(async () => {
    copy = mkdtempSync(path.resolve(".examples-copy-"));
    cpSync("examples", path.join(copy, "examples"), { recursive: true });
    server = await startTestServer({ WORLD_TICK_MS: "100" });
  });
  after(async () => {
    rmSync(copy, { recursive: true, force: true });
    await server?.stop();
  });

  it("ws-client.ts signs in, walks, chats, prints what it sees and exits by itself", async () => {
    const stdout = await runExample("examples/ws-client.ts", server.wsUrl);
    assert.match(stdout, /signed in anonymously as player /);
    assert.match(stdout, /← player:sync: I am \S+ at \(32,32\)/);
    assert.match(stdout, /says: hello from examples\/ws-client\.ts/);
    assert.match(stdout, /→\(34,32\)/, "it sees itself arrive two tiles east");
    assert.match(stdout, /closed 1000 bye/);
  });

  it("sdk-client.ts does the same through the Colyseus SDK, sent world:update messages", async () => {
    const stdout = await runExample("examples/sdk-client.ts", server.baseUrl);
    assert.match(stdout, /← player:sync: I am \S+ at \(32,32\)/);
    assert.match(stdout, /says: hello from examples\/sdk-client\.ts/);
    assert.match(stdout, /← world:update: tick \d+: .*→\(34,32\)/, "it sees itself arrive two tiles east");
    assert.doesNotMatch(stdout, /^state:/m);
    assert.match(stdout, /left 4000/);
  });

  it("sdk-client.ts --state reads the same from the room's schema state", async () => {
    const stdout = await runExample("examples/sdk-client.ts", server.baseUrl, "--state");
    assert.match(
      stdout,
      /state: \d+ entities in view, \S+→\(34,32\)/,
      "it sees itself arrive two tiles east",
    );
    assert.doesNotMatch(stdout, /world:update/);
    assert.match(stdout, /left 4000/);
  });
});
