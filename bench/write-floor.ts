// The least a publish's socket writes can cost on this machine: one write(2) to each of N loopback TCP
// connections (what the world's writer thread does once per /ws client per tick), with nothing else
// around it. Run as root on Linux with two cores, the kernel's receiving of those writes is moved to
// core 1 (see bench/loopback-steering.ts; --unsteered leaves it on the writing core).
//   taskset -c 0 npx tsx bench/write-floor.ts [--connections 2000] [--bytes 5000] [--rounds 20] [--unsteered]
import net from "node:net";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { writeToSocket } from "../src/net/socket-write.js";
import { steerLoopbackReceiveTo } from "./loopback-steering.js";
import { percentiles, progress } from "./stats.js";

const { values: args } = parseArgs({
  options: {
    connections: { type: "string", default: "2000" },
    bytes: { type: "string", default: "5000" },
    rounds: { type: "string", default: "20" },
    unsteered: { type: "boolean", default: false },
  },
});
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);
const payload = Buffer.alloc(Number(args.bytes), "x");

async function main(): Promise<void> {
  console.log(
    os.cpus().length >= 2 && !args.unsteered
      ? steerLoopbackReceiveTo(1)
      : "loopback receive where Linux puts it: on the writing core",
  );
  // The readers drain everything, so no write waits on a full socket buffer.
  const server = net.createServer((socket) => socket.resume());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const sockets: net.Socket[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    sockets.push(
      await new Promise((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
      }),
    );
    if (i % 100 === 99) progress("connecting", i + 1, CONNECTIONS);
  }
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (const socket of sockets) writeToSocket(socket, payload);
    rounds.push(performance.now() - started);
    progress("writing", round + 1, ROUNDS);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const { p50, p99, max } = percentiles(rounds);
  console.log(
    `\n${CONNECTIONS} writes of ${payload.length} B: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
      `max ${max.toFixed(1)} ms (${((p50 * 1000) / CONNECTIONS).toFixed(1)} µs a write)`,
  );
  for (const socket of sockets) socket.destroy();
  server.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
