import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { WebSocket, WebSocketServer } from "ws";
import { internalAddress } from "../src/server/internal-address.js";

/** An HTTP server that answers its path, with WebSockets that echo, as the game server has both. */
function echoServer(): http.Server {
  const server = http.createServer((request, response) => response.end(`you asked for ${request.url}`));
  const sockets = new WebSocketServer({ server });
  sockets.on("connection", (socket) => socket.on("message", (data) => socket.send(`echo ${data}`)));
  return server;
}

function listen(server: http.Server, where: string | number): Promise<void> {
  return new Promise((resolve) => server.listen(where, resolve));
}

function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function echoOver(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("open", () => socket.send("hello"));
    socket.once("message", (data) => {
      socket.close();
      resolve(String(data));
    });
    socket.once("error", reject);
  });
}

describe("internalAddress: where the agents reach their own server", () => {
  it("is the loopback on the server's port when it listens on TCP", async () => {
    const server = echoServer();
    await listen(server, 0);
    try {
      const { port } = server.address() as net.AddressInfo;
      assert.equal(await internalAddress(server), `http://127.0.0.1:${port}`);
    } finally {
      await close(server);
    }
  });

  it("opens a loopback port into a server on a Unix socket, for HTTP and WebSockets, closed with it", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tileworld-socket-"));
    const server = echoServer();
    await listen(server, path.join(dir, "server.sock"));
    try {
      const address = await internalAddress(server);
      const response = await fetch(`${address}/health`);
      assert.equal(await response.text(), "you asked for /health");
      assert.equal(await echoOver(address.replace("http:", "ws:")), "echo hello");

      await close(server);
      await assert.rejects(fetch(`${address}/health`));
    } finally {
      if (server.listening) await close(server);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
