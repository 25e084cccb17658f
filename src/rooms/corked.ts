import type { Socket } from "node:net";
import type { Client } from "@colyseus/core";

/**
 * Runs `send` with every client's TCP socket corked, so the many small frames a tick sends each client
 * leave in one write per client instead of one system call per frame.
 */
export function withCorkedSockets(clients: Iterable<Client>, send: () => void): void {
  const sockets: Socket[] = [];
  for (const client of clients) {
    // Both kinds of client keep their `ws` WebSocket as `ref` (SDK) or `socket` (/ws); its TCP socket is `_socket`.
    const ws = (client as { socket?: unknown }).socket ?? client.ref;
    const socket = (ws as { _socket?: Socket } | undefined)?._socket;
    if (socket && !socket.destroyed) {
      socket.cork();
      sockets.push(socket);
    }
  }
  try {
    send();
  } finally {
    for (const socket of sockets) socket.uncork();
  }
}
