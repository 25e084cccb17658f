import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { startTestServer } from "../support/server.js";
import { connectNewPlayer } from "../support/ws-client.js";

describe("/ws: slow readers and shutdown", function () {
  this.timeout(30000);

  it("disconnects a client that stops reading instead of buffering for it", async () => {
    const server = await startTestServer({ WORLD_TICK_MS: "50", RATE_LIMIT_WS_PER_SEC: "100000" });
    try {
      const { client } = await connectNewPlayer(server);
      // Stop reading: the server's writes pile up in its socket until the slow-reader limit.
      const tcp = (client.socket as unknown as { _socket: import("node:net").Socket })._socket;
      tcp.pause();
      const chat = JSON.stringify({ event: "player:chat", data: { message: "x".repeat(200) } });
      // Each chat comes back to its sender: the server's output to this unread socket keeps growing.
      const flood = setInterval(() => {
        for (let i = 0; i < 50 && client.socket.readyState === WebSocket.OPEN; i++) client.socket.send(chat);
      }, 5);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      clearInterval(flood);
      // Reading again lets the client see that the server has cut the connection.
      tcp.resume();
      const { code } = await client.closed;
      assert.ok(code === 4008 || code === 1006, `closed with ${code}`);
    } finally {
      await server.stop();
    }
  });

  it("closes connections with 4001 when the server shuts down", async () => {
    const server = await startTestServer({ WORLD_TICK_MS: "50" });
    const { client } = await connectNewPlayer(server);
    await server.stop();
    assert.equal((await client.closed).code, 4001);
  });

  it("closes a connection that stops answering pings", async () => {
    const server = await startTestServer({ WORLD_TICK_MS: "50", WS_PING_MS: "200" });
    try {
      const silent = new WebSocket(server.wsUrl, { autoPong: false });
      const closed = new Promise<number>((resolve) => silent.on("close", (code) => resolve(code)));
      await new Promise((resolve) => silent.once("open", resolve));
      const answering = await connectNewPlayer(server);
      assert.equal(await closed, 1006, "terminated, without a closing handshake");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(answering.client.socket.readyState, WebSocket.OPEN, "a client that answers pings stays");
      await answering.client.close();
    } finally {
      await server.stop();
    }
  });
});
