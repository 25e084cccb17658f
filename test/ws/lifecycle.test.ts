import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { matchMaker } from "@colyseus/core";
import { WebSocket } from "ws";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import type { JsonClient } from "../../src/protocol/json-client.js";
import { findWorld } from "../../src/rooms/world-listing.js";
import { waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectNewPlayer, type WsClient } from "../support/ws-client.js";

describe("/ws: slow readers and shutdown", function () {
  this.timeout(30000);

  /** The server's end of a player's /ws connection. */
  async function serverSocketOf(playerId: string): Promise<WebSocket> {
    const world = matchMaker.getLocalRoomById((await findWorld())!.roomId)!;
    const client = world.clients.find(
      (candidate) => (candidate.auth as { characterId?: string } | undefined)?.characterId === playerId,
    ) as unknown as JsonClient;
    return client.socket;
  }

  /**
   * Connects a player that stops reading, and makes the server's output to it pile up until the server
   * gives up on it: how long that takes depends on how fast a loaded machine floods (and on the
   * kernel's socket buffers, which fill first).
   */
  async function stopReadingUnderFlood(server: TestServer): Promise<{ client: WsClient; tcp: Socket }> {
    const { client, id } = await connectNewPlayer(server);
    const serverSide = await serverSocketOf(id);
    const tcp = (client.socket as unknown as { _socket: Socket })._socket;
    tcp.pause();
    const chat = JSON.stringify({ event: "player:chat", data: { message: "x".repeat(200) } });
    // Each chat comes back to its sender: the server's output to this unread socket keeps growing.
    const flood = setInterval(() => {
      for (let i = 0; i < 50 && client.socket.readyState === WebSocket.OPEN; i++) client.socket.send(chat);
    }, 5);
    try {
      await waitForAsync(
        async () => serverSide.readyState !== WebSocket.OPEN,
        "the server closes the connection",
        20000,
      );
    } finally {
      clearInterval(flood);
    }
    return { client, tcp };
  }

  it("closes a client that stops reading with 4008 instead of buffering for it", async () => {
    const server = await startTestServer({
      WORLD_TICK_MS: "50",
      RATE_LIMIT_WS_PER_SEC: "100000",
      RATE_LIMIT_CHAT_PER_SEC: "100000",
    });
    try {
      const { client, tcp } = await stopReadingUnderFlood(server);
      // Reading again within the grace, the client reads up to the close frame and learns why.
      tcp.resume();
      // Bounded, so that a failure still stops this server (a hang would leave its port taken).
      const closed = client.closed.then(({ code }) => code);
      assert.equal(await Promise.race([closed, sleep(8000).then(() => "still open")]), 4008);
    } finally {
      await server.stop();
    }
  });

  it("cuts a slow reader that does not catch up within the grace, and its player leaves", async () => {
    // Pings far apart: only the slow-reader grace (5 s) can cut it within the wait.
    const server = await startTestServer({
      WORLD_TICK_MS: "50",
      RATE_LIMIT_WS_PER_SEC: "100000",
      RATE_LIMIT_CHAT_PER_SEC: "100000",
      WS_PING_MS: "60000",
      // Its seat is let go as soon as the connection is cut.
      RECONNECT_SECONDS: "0",
    });
    try {
      const { tcp } = await stopReadingUnderFlood(server);
      const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
      const playersOnline = async () => {
        const response = await fetch(`${server.baseUrl}/api/v1/world`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return ((await response.json()) as { playersOnline: number }).playersOnline;
      };
      await waitForAsync(
        async () => (await playersOnline()) === 0,
        "the slow reader's player to leave",
        12000,
      );
      tcp.destroy();
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
    // A second between pings: a busy machine still answers within it, where 200 ms cut clients that did.
    const server = await startTestServer({ WORLD_TICK_MS: "50", WS_PING_MS: "1000" });
    try {
      const silent = new WebSocket(server.wsUrl, { autoPong: false });
      const closed = new Promise<number>((resolve) => silent.on("close", (code) => resolve(code)));
      await new Promise((resolve) => silent.once("open", resolve));
      const answering = await connectNewPlayer(server);
      assert.equal(await closed, 1006, "terminated, without a closing handshake");
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(answering.client.socket.readyState, WebSocket.OPEN, "a client that answers pings stays");
      await answering.client.close();
    } finally {
      await server.stop();
    }
  });
});
