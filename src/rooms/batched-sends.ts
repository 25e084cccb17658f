import type { Socket } from "node:net";
import type { Client } from "@colyseus/core";
import { JsonClient } from "../ws/JsonClient.js";
import { WriteSlab } from "../ws/write-slab.js";

/** Where a publish assembles each /ws connection's frames: one thread, one publish at a time. */
const slab = new WriteSlab();

/**
 * The clients of one publish, holding what they are sent until `write`: a /ws client holds its frames,
 * an SDK client's TCP socket is corked.
 */
export class SendBatch {
  private readonly held: JsonClient[] = [];
  private readonly corked: Socket[] = [];

  constructor(clients: Iterable<Client>) {
    for (const client of clients) {
      if (client instanceof JsonClient) {
        client.hold(slab);
        this.held.push(client);
        continue;
      }
      // An SDK client keeps its `ws` WebSocket as `ref`; its TCP socket is `_socket`.
      const socket = (client.ref as { _socket?: Socket } | undefined)?._socket;
      if (socket && !socket.destroyed) {
        socket.cork();
        this.corked.push(socket);
      }
    }
  }

  /** Writes what each client was sent, in one write per client. */
  write(): void {
    for (const client of this.held) client.flush();
    for (const socket of this.corked) socket.uncork();
    // Now rather than at the next publish: what it framed dies young, before the collection after the tick.
    slab.reset();
  }
}

/**
 * Runs `send` so that what it sends each client leaves in one write (see SendBatch). A tick sends many
 * small frames to each client (its view, chat, hits); one write per client instead of one or two per
 * frame is what lets a world of thousands publish within its tick. `send` may take memory for frames
 * it shares between clients from `slab`.
 */
export function withBatchedSends(clients: Iterable<Client>, send: (slab: WriteSlab) => void): void {
  const batch = new SendBatch(clients);
  try {
    send(slab);
  } finally {
    batch.write();
  }
}
