import assert from "node:assert/strict";
import { joinAsNewPlayer, leave, type SdkPlayer, sleep, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectNewPlayer, type WsPlayer } from "../support/ws-client.js";

const ADMIN_CODE = "chat-admin-code";

describe("chat: commands and the chat rate, through /ws and the SDK", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: WsPlayer[] = [];
  const sdkPlayers: SdkPlayer[] = [];
  const connect = async () => {
    const player = await connectNewPlayer(server);
    players.push(player);
    return player;
  };

  before(async function () {
    // Opening the embedded database takes long on a busy machine.
    this.timeout(120000);
    server = await startTestServer({ WORLD_TICK_MS: "100", ADMIN_CODE, RATE_LIMIT_AUTH_PER_MIN: "100" });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
    await Promise.all(sdkPlayers.splice(0).map((player) => leave(player.room)));
  });
  after(() => server?.stop());

  /** Two players at the spawn, each in the other's view. */
  async function neighbours(): Promise<[WsPlayer, WsPlayer]> {
    const alice = await connect();
    const bob = await connect();
    await bob.client.received(
      (frame) => frame.event === "world:update" && frame.data.added.some((e: any) => e.id === alice.id),
    );
    return [alice, bob];
  }

  it("says no line starting with / aloud: commands in any case, unknown ones refused to the sender", async () => {
    const [alice, bob] = await neighbours();
    alice.client.send("player:chat", { message: "/help" }, "help");
    const help = await alice.client.next("chat:message", (_data, frame) => frame.id === "help");
    assert.equal(help.data.fromPlayerId, "server");
    assert.match(
      help.data.message,
      /^Commands: \/help\. With the server's admin code, \/admin <code> enables/,
    );
    alice.client.send("player:chat", { message: `/Admin ${ADMIN_CODE}` }, "cased");
    const enabled = await alice.client.next("chat:message", (data) => data.fromPlayerId === "server");
    assert.equal(enabled.id, "cased", "/Admin is /admin");
    alice.client.send("player:chat", { message: "/ADMIN not-the-code" }, "wrong");
    const wrong = await alice.client.next("error", (_data, frame) => frame.id === "wrong");
    assert.equal(wrong.data.code, "forbidden");
    alice.client.send("player:chat", { message: `/admin: ${ADMIN_CODE}` }, "typo");
    const typo = await alice.client.next("error", (_data, frame) => frame.id === "typo");
    assert.deepEqual([typo.data.code, typo.data.event], ["unknown_command", "player:chat"]);
    assert.ok(!typo.data.message.includes(ADMIN_CODE), typo.data.message);
    assert.match(typo.data.message, /\/help lists them/);
    alice.client.send("player:chat", { message: "/HELP" }, "admin-help");
    const adminHelp = await alice.client.next("chat:message", (_data, frame) => frame.id === "admin-help");
    assert.match(
      adminHelp.data.message,
      /^Commands: \/help; as an admin, \/give <itemId> \[quantity\], \/tp <x> <z>, \/heal, \/kick <name>, \/mute <name> <minutes>, \/unmute <name>, \/ban <name> <minutes>, \/unban <name>, \/announce <message>\./,
    );
    alice.client.send("player:chat", { message: "/me waves" }, "unknown");
    assert.equal(
      (await alice.client.next("error", (_d, frame) => frame.id === "unknown")).data.code,
      "unknown_command",
    );
    alice.client.send("player:chat", { message: "plain words" });
    await bob.client.next("chat:message", (data) => data.message === "plain words");
    const heard = bob.client.frames
      .filter((frame) => frame.event === "chat:message")
      .map((f) => f.data.message);
    assert.deepEqual(heard, ["plain words"], "Bob heard no command");
    assert.deepEqual(
      alice.client.frames.filter((f) => f.event === "chat:message" && f.data.fromPlayerId === alice.id)
        .length,
      1,
      "Alice's own copy holds only the plain line",
    );
  });

  it("says at most 2 lines a second per player: the others are refused rate_limited to the sender alone", async () => {
    const [alice, bob] = await neighbours();
    for (let line = 1; line <= 5; line++)
      alice.client.send("player:chat", { message: `line ${line}` }, `l${line}`);
    const refused = await Promise.all(
      ["l3", "l4", "l5"].map((id) => alice.client.next("error", (_d, frame) => frame.id === id)),
    );
    for (const refusal of refused)
      assert.deepEqual([refusal.data.code, refusal.data.event], ["rate_limited", "player:chat"]);
    await bob.client.next("chat:message", (data) => data.message === "line 2");
    // A few more ticks for any line that would still reach Bob.
    await sleep(400);
    const heard = () =>
      bob.client.frames.filter((frame) => frame.event === "chat:message").map((frame) => frame.data.message);
    assert.deepEqual(heard(), ["line 1", "line 2"]);
    assert.ok(!bob.client.frames.some((frame) => frame.event === "error"), "Bob is told nothing");
    // A second later, Alice may talk again.
    await sleep(1000);
    alice.client.send("player:chat", { message: "later" });
    await bob.client.next("chat:message", (data) => data.message === "later");
  });

  it("holds SDK clients to the same chat rate", async () => {
    const [, bob] = await neighbours();
    const carol = await joinAsNewPlayer(server);
    sdkPlayers.push(carol);
    await bob.client.received(
      (frame) => frame.event === "world:update" && frame.data.added.some((e: any) => e.id === carol.id),
    );
    for (let line = 1; line <= 4; line++) carol.room.send("player:chat", { message: `sdk ${line}` });
    const refusals = () => carol.inbox.all("error").filter((data) => data.code === "rate_limited");
    await waitForAsync(async () => refusals().length >= 2, "Carol's two refusals", 5000);
    await bob.client.received((frame) => frame.event === "chat:message" && frame.data.message === "sdk 2");
    await sleep(400);
    const heard = bob.client.frames
      .filter((frame) => frame.event === "chat:message")
      .map((f) => f.data.message);
    assert.deepEqual(heard, ["sdk 1", "sdk 2"]);
    assert.deepEqual(
      refusals().map((data) => data.event),
      ["player:chat", "player:chat"],
    );
  });
});
