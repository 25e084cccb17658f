import type http from "node:http";
import net from "node:net";

/**
 * The address at which this process's own clients (the agents) reach its HTTP server once it listens.
 * On a TCP port that is the loopback on that port. On a Unix socket (Colyseus Cloud listens on one,
 * behind its proxy) the SDK has no way in, so a loopback port of its own is opened that hands each
 * connection to the server, and closed with it.
 */
export async function internalAddress(server: http.Server): Promise<string> {
  const address = server.address();
  if (address === null) throw new Error("the server is not listening");
  if (typeof address !== "string") return `http://127.0.0.1:${address.port}`;
  const loopback = net.createServer((socket) => server.emit("connection", socket));
  await new Promise<void>((resolve, reject) => {
    loopback.once("error", reject);
    loopback.listen(0, "127.0.0.1", resolve);
  });
  server.once("close", () => loopback.close());
  return `http://127.0.0.1:${(loopback.address() as net.AddressInfo).port}`;
}
