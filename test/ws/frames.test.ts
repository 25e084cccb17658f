import assert from "node:assert/strict";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { sleep, waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectNewPlayer, WsClient, type WsPlayer } from "../support/ws-client.js";

describe("/ws: frames the server cannot take", function () {
  this.timeout(30000);
  let server: TestServer;
  let player: WsPlayer;

  /** Proves the connection still plays: its chat comes back to it. */
  async function assertStillUsable(): Promise<void> {
    const message = `still here ${Math.random()}`;
    const echoed = player.client.next("chat:message", (data) => data.message === message);
    player.client.send("player:chat", { message });
    await echoed;
  }

  before(async () => {
    // Each test proves the connection still plays by chatting: more lines a second than the chat rate.
    server = await startTestServer({ WORLD_TICK_MS: "100", RATE_LIMIT_CHAT_PER_SEC: "1000" });
    player = await connectNewPlayer(server);
  });
  after(async () => {
    await player?.client.close();
    await server?.stop();
  });

  it("keeps a dropped player online for its reconnection, where a normal close logs it out at once", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const online = async (id: string) => {
      const response = await fetch(`${server.baseUrl}/api/characters/${id}/position`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await response.json()) as { online: boolean }).online;
    };
    const leaving = await connectNewPlayer(server);
    const dropped = await connectNewPlayer(server);
    // A browser closes with 1001 when its page goes away: a drop like any close but 1000, not a logout.
    const goneAway = await connectNewPlayer(server);
    dropped.client.socket.terminate();
    goneAway.client.socket.close(1001);
    await leaving.client.close();
    await waitForAsync(async () => !(await online(leaving.id)), "the player who closed to log out");
    await sleep(500);
    assert.equal(await online(dropped.id), true, "the dropped player keeps its seat");
    assert.equal(await online(goneAway.id), true, "the player whose page went away keeps its seat");
  });

  // The error names the frame's event: null when it could not be read.
  const badFrames: { kind: string; frame: string | Buffer; code: string; event: string | null }[] = [
    { kind: "a binary frame", frame: Buffer.from([1, 2, 3]), code: "bad_frame", event: null },
    { kind: "text that is not JSON", frame: "{event: player:move", code: "bad_frame", event: null },
    { kind: "JSON that is not an object", frame: "[1, 2]", code: "bad_frame", event: null },
    {
      kind: "an object without an event",
      frame: JSON.stringify({ data: { x: 1 } }),
      code: "bad_frame",
      event: null,
    },
    {
      kind: "an unknown event",
      frame: JSON.stringify({ event: "teleport:me", data: {} }),
      code: "unknown_event",
      event: "teleport:me",
    },
    {
      kind: "data that fails validation",
      frame: JSON.stringify({ event: "player:move", data: { x: "north", z: 1 } }),
      code: "bad_request",
      event: "player:move",
    },
    {
      kind: "a frame over 4096 bytes",
      frame: JSON.stringify({ event: "player:chat", data: { message: "x".repeat(5000) } }),
      code: "frame_too_large",
      event: "player:chat",
    },
  ];
  for (const { kind, frame, code, event } of badFrames) {
    it(`answers ${kind} with error ${code} and stays usable`, async () => {
      const answer = player.client.next("error");
      player.client.sendRaw(frame, Buffer.isBuffer(frame));
      const { data } = await answer;
      assert.equal(data.code, code);
      assert.equal(typeof data.message, "string");
      assert.equal(data.event, event);
      await assertStillUsable();
    });
  }

  it("closes a connection that sends a frame too large to read (1009), and goes on serving the others", async () => {
    const reckless = await connectNewPlayer(server);
    reckless.client.sendRaw("x".repeat(70 * 1024));
    assert.equal((await reckless.client.closed).code, 1009);
    await assertStillUsable();
  });

  it("echoes a request's id on its error reply", async () => {
    const invalid = player.client.next("error", (_data, frame) => frame.id === "move-1");
    player.client.send("player:move", { x: "north", z: 1 }, "move-1");
    assert.equal((await invalid).data.code, "bad_request");
    const refused = player.client.next("error", (_data, frame) => frame.id === "move-2");
    player.client.send("player:move", { x: 32 + 400, z: 32 }, "move-2");
    assert.equal((await refused).data.code, "move_too_far");
    const noEvent = player.client.next("error", (_data, frame) => frame.id === "no-event");
    player.client.sendRaw(JSON.stringify({ data: {}, id: "no-event" }));
    assert.equal((await noEvent).data.code, "bad_frame");
    // A frame over the size limit is read all the same, to answer it.
    const large = player.client.next("error", (_data, frame) => frame.id === "large-1");
    player.client.sendRaw(
      JSON.stringify({ event: "player:chat", data: { message: "x".repeat(5000) }, id: "large-1" }),
    );
    assert.deepEqual((await large).data.code, "frame_too_large");
  });

  it("echoes the id on a trade request's tradeError", async () => {
    const refused = player.client.next("tradeError", (_data, frame) => frame.id === "trade-1");
    player.client.send("tradeRequest", { targetPlayerId: player.id }, "trade-1");
    assert.equal((await refused).data.reason, "self_trade");
  });

  it("refuses a non-string id with bad_frame", async () => {
    const answer = player.client.next("error");
    player.client.sendRaw(JSON.stringify({ event: "player:chat", data: { message: "hi" }, id: 7 }));
    const { data, id } = await answer;
    assert.equal(data.code, "bad_frame");
    assert.equal(id, undefined);
    await assertStillUsable();
  });
});

describe("/ws: flooding", function () {
  this.timeout(30000);
  const LIMIT = 5;
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ WORLD_TICK_MS: "100", RATE_LIMIT_WS_PER_SEC: String(LIMIT) });
  });
  after(() => server?.stop());

  it("answers the first frame over the limit with rate_limited, then closes a client that keeps on with 4429", async () => {
    const { client } = await connectNewPlayer(server);
    const limited = client.next("error", (data) => data.code === "rate_limited");
    for (let i = 0; i <= LIMIT; i++) client.send("player:move", { x: 32, z: 33 }, `move-${i}`);
    // The refusal is the reply to the frame over the limit.
    const refusal = await limited;
    assert.equal(refusal.id, `move-${LIMIT}`);
    assert.equal(refusal.data.event, "player:move");
    for (let i = 0; i <= LIMIT; i++) client.send("player:move", { x: 32, z: 33 });
    assert.equal((await client.closed).code, 4429);
  });

  it("keeps a player's block across a new connection: reconnecting neither resets the count nor lifts it", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    const first = await WsClient.connect(server.wsUrl, { header: token });
    await first.received((frame) => frame.event === "player:sync");
    const limited = first.next("error", (data) => data.code === "rate_limited");
    for (let i = 0; i <= LIMIT; i++) first.send("player:move", { x: 32, z: 33 });
    await limited;
    const second = await WsClient.connect(server.wsUrl, { header: token });
    await second.received((frame) => frame.event === "player:sync");
    // Still blocked: its frames are dropped, and flooding on through the block closes it.
    for (let i = 0; i <= LIMIT; i++) second.send("player:move", { x: 32, z: 33 });
    const closed = await Promise.race([second.closed, sleep(5000).then(() => ({ code: "still open" }))]);
    assert.equal(closed.code, 4429);
    assert.ok(!second.frames.some((frame) => frame.data?.code === "rate_limited"), "no fresh count to pass");
    await first.close();
  });

  it("limits any one second, not each second from the first frame: a burst across its end is refused", async () => {
    const { client } = await connectNewPlayer(server);
    const limited = client.next("error", (data) => data.code === "rate_limited");
    const move = () => client.send("player:move", { x: 32, z: 33 });
    move();
    await sleep(800);
    for (let i = 1; i < LIMIT; i++) move();
    await sleep(300);
    // 2 * LIMIT - 1 frames within 300 ms, though never more than LIMIT since the first frame's second began.
    for (let i = 0; i < LIMIT; i++) move();
    await limited;
    await client.close();
  });

  it("drops frames during the block without closing a client that slows down", async () => {
    const { client } = await connectNewPlayer(server);
    const limited = client.next("error", (data) => data.code === "rate_limited");
    for (let i = 0; i <= LIMIT; i++) client.send("player:move", { x: 32, z: 33 });
    await limited;
    const mark = client.frames.length;
    client.send("player:move", { x: 400, z: 32 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(
      client.since(mark).filter((frame) => frame.event === "error").length,
      0,
      "the blocked frame is dropped",
    );
    assert.equal(client.socket.readyState, client.socket.OPEN);
    await client.close();
  });
});
