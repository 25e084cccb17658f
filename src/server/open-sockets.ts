// The sockets an HTTP server has accepted, WebSockets included. Its close waits for every one of them,
// and `closeAllConnections` ends HTTP connections only: a WebSocket whose peer never answers the close
// handshake (a frozen tab, a dead network) would hold a shutdown for `ws`'s 30 s.
import type http from "node:http";
import type { Socket } from "node:net";

const openSockets = new WeakMap<http.Server, Set<Socket>>();

export function trackSockets(server: http.Server): void {
  const sockets = new Set<Socket>();
  openSockets.set(server, sockets);
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
}

/** Ends every socket the server still has open. */
export function endOpenSockets(server: http.Server): void {
  for (const socket of openSockets.get(server) ?? []) socket.destroy();
}
