import type { Server } from "node:http";
import net from "node:net";
import type { Logger } from "../telemetry/logger.js";
import { clientKey } from "./rate-limits.js";

/**
 * Holds each client address to `limit` open connections at once. The request limits count requests;
 * a client that opens connections and sends nothing on them is only closed by the headers timeout,
 * and until then each holds a file descriptor: from one address, enough of them would leave the
 * server none for its players. A connection past the limit is closed as it arrives, before it is read.
 * Loopback connections are the machine's own (the server's agents, a proxy beside it) and are not
 * counted. IPv6 addresses count by their /56, as the request limits do.
 */
export function capConnectionsPerAddress(server: Server, limit: number, logger: Logger): void {
  const open = new Map<string, number>();
  /** Addresses told about in the log since they last went under the limit: once each, not per refusal. */
  const reported = new Set<string>();
  server.on("connection", (socket: net.Socket) => {
    const address = socket.remoteAddress;
    if (!address || isLoopback(address)) return;
    const key = clientKey(address);
    const count = open.get(key) ?? 0;
    if (count >= limit) {
      if (!reported.has(key))
        logger.warn({ address: key, limit }, "a client address reached its connection limit");
      reported.add(key);
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
      reported.delete(key);
    });
  });
}

function isLoopback(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return net.isIPv4(v4) ? v4.startsWith("127.") : address === "::1";
}
