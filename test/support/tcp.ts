import { once } from "node:events";
import net from "node:net";

/** A connected pair of loopback TCP sockets: `writer` is ours, `reader` the far end. */
export async function connectedPair(): Promise<{
  writer: net.Socket;
  reader: net.Socket;
  close: () => void;
}> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const accepted = once(server, "connection") as Promise<[net.Socket]>;
  const writer = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  await once(writer, "connect");
  const [reader] = await accepted;
  return {
    writer,
    reader,
    close: () => {
      writer.destroy();
      reader.destroy();
      server.close();
    },
  };
}

/** Everything the reader receives until it has `length` bytes. */
export async function readExactly(reader: net.Socket, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  reader.resume();
  for await (const chunk of reader) {
    chunks.push(chunk as Buffer);
    received += (chunk as Buffer).length;
    if (received >= length) break;
  }
  return Buffer.concat(chunks);
}

/** `length` bytes counting up from `from`, so that a byte out of order shows. */
export function sequence(from: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) bytes[i] = (from + i) % 251;
  return bytes;
}

/** A TCP proxy in front of a server (PostgreSQL, say) whose connections a test cuts, stalls or silences. */
export interface TcpProxy {
  port: number;
  /** Connections through the proxy now (those silenced included). */
  readonly open: number;
  /**
   * The connections open now go silent, as when a failover or a lost NAT entry drops their packets:
   * nothing either side sends is passed on, a close included. New connections pass as before.
   */
  blackHole(): number;
  /** Every connection, open or new, holds what it is sent until `resume` (a database that stalls). */
  stall(): void;
  resume(): void;
  /** Resets every open connection. */
  cut(): void;
  /** An outage: every connection is reset, and new ones too, until `up`. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

interface ProxiedConnection {
  client: net.Socket;
  server: net.Socket;
  silent: boolean;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const connections = new Set<ProxiedConnection>();
  let stalled = false;
  let refusing = false;
  const proxy = net.createServer((client) => {
    if (refusing) {
      client.on("error", () => {});
      client.resetAndDestroy();
      return;
    }
    const server = net.connect(target.port, target.host);
    const connection: ProxiedConnection = { client, server, silent: false };
    connections.add(connection);
    const pass = (from: net.Socket, to: net.Socket) => {
      from.on("data", (chunk) => {
        if (!connection.silent) to.write(chunk);
      });
      from.on("error", () => {});
      from.on("close", () => {
        if (!connection.silent) to.destroy();
        if (client.destroyed && server.destroyed) connections.delete(connection);
      });
    };
    pass(client, server);
    pass(server, client);
    if (stalled) {
      client.pause();
      server.pause();
    }
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  const all = () => [...connections];
  const cut = () => {
    for (const { client, server } of all()) {
      client.resetAndDestroy();
      server.resetAndDestroy();
    }
  };
  return {
    port: (proxy.address() as net.AddressInfo).port,
    get open() {
      return connections.size;
    },
    blackHole() {
      const open = all().filter((connection) => !connection.silent);
      for (const connection of open) connection.silent = true;
      return open.length;
    },
    stall() {
      stalled = true;
      for (const { client, server } of all()) {
        client.pause();
        server.pause();
      }
    },
    resume() {
      stalled = false;
      for (const { client, server } of all()) {
        client.resume();
        server.resume();
      }
    },
    cut,
    down() {
      refusing = true;
      cut();
    },
    up() {
      refusing = false;
    },
    async close() {
      for (const { client, server } of all()) {
        client.destroy();
        server.destroy();
      }
      connections.clear();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
