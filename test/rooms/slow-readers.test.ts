import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { matchMaker } from "@colyseus/core";
import { WebSocket } from "ws";
import { joinAsNewPlayer } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { waitFor } from "./world-helpers.js";

describe("SDK clients that stop reading", function () {
  this.timeout(30000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      WORLD_TICK_MS: "50",
      RATE_LIMIT_WS_PER_SEC: "100000",
      RATE_LIMIT_CHAT_PER_SEC: "100000",
    });
  });
  after(() => server?.stop());

  it("are closed with 4008 instead of buffered for, even while they answer the heartbeat", async () => {
    const player = await joinAsNewPlayer(server);
    const ws = (player.room.connection.transport as unknown as { ws: WebSocket }).ws;
    const tcp = (ws as unknown as { _socket: Socket })._socket;
    const closed = new Promise<number>((resolve) => ws.once("close", resolve));
    tcp.pause();
    // Each chat comes back to its sender; an unsolicited pong keeps Colyseus's heartbeat satisfied, so
    // only the unread output can tell this client apart from a live one.
    const flood = setInterval(() => {
      for (let i = 0; i < 50; i++) player.room.send("player:chat", { message: "x".repeat(200) });
      ws.pong();
    }, 5);
    // Until the server gives up on it: how long its unread output takes to pass the limit depends on
    // how fast a loaded machine floods (and on the kernel's socket buffers, which fill first).
    const serverSide = matchMaker
      .getLocalRoomById(player.room.roomId)!
      .clients.find((client) => client.sessionId === player.room.sessionId)!.ref as unknown as WebSocket;
    try {
      await waitFor(
        () => serverSide.readyState !== WebSocket.OPEN,
        "the server closes the connection",
        20000,
      );
    } finally {
      clearInterval(flood);
    }
    // Reading again within the grace, the client reads up to the close frame and learns why.
    tcp.resume();
    assert.equal(await Promise.race([closed, sleep(8000).then(() => "still open")]), 4008);
  });
});
