// the x-tileworld-identity header is trusted only beside the relay pass.
import assert from "node:assert/strict";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, WsClient } from "../support/ws-client.js";

const identityHeader = (subject: string) =>
  Buffer.from(JSON.stringify({ subject, kind: "anonymous" })).toString("base64url");

describe("a client sending x-tileworld-identity itself", function () {
  this.timeout(30000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100" });
  });
  after(() => server?.stop());

  it("is not taken as the identity it names, without a token or beside another's", async () => {
    const alice = await issueAnonymousToken(server.runtime.jwtSecret);
    const aliceIn = await connectPlayer(server, undefined, alice.token);
    await aliceIn.client.close();
    const forged = { "x-tileworld-identity": identityHeader(alice.subject), "x-tileworld-relay": "guess" };
    const bare = await WsClient.connect(server.wsUrl, "none", forged);
    const bareSync = await bare.first();
    assert.equal(bareSync.event, "player:sync");
    assert.notEqual(bareSync.data.id, aliceIn.id);
    await bare.close();
    const mallory = await issueAnonymousToken(server.runtime.jwtSecret);
    const withToken = await WsClient.connect(server.wsUrl, { header: mallory.token }, forged);
    const sync = await withToken.first();
    assert.equal(sync.event, "player:sync");
    assert.notEqual(sync.data.id, aliceIn.id);
    await withToken.close();
  });
});
