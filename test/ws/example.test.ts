import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "../support/server.js";

const run = promisify(execFile);

describe("examples/ws-client.ts", function () {
  this.timeout(30000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100" });
  });
  after(() => server?.stop());

  it("signs in, walks, chats, prints what it sees and exits by itself", async () => {
    const { stdout } = await run(process.execPath, [
      "--import",
      "tsx",
      "examples/ws-client.ts",
      server.wsUrl,
      "--seconds",
      "2",
    ]);
    assert.match(stdout, /signed in anonymously as player /);
    assert.match(stdout, /← player:sync: I am \S+ at \(32,32\)/);
    assert.match(stdout, /says: hello from examples\/ws-client\.ts/);
    assert.match(stdout, /→\(34,32\)/, "it sees itself arrive two tiles east");
    assert.match(stdout, /closed 1000 bye/);
  });
});
