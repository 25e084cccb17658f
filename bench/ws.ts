// Request/reply throughput of the /ws JSON channel beside a bare `ws` echo server, in the same process and run.
//   npx tsx bench/ws.ts [--clients N] [--seconds S] [--window W]
// Each client keeps W requests in flight: `player:move` to a tile 1000 tiles away with an `id`, which goes the
// whole way (envelope parsing, flood guard, zod validation, the world's move check) and comes back as an
// `error` move_too_far carrying the id. The echo server sends the same frames straight back.
// The server runs with RATE_LIMIT_WS_PER_SEC=1000000: the 60/s per-connection limit would otherwise be
// what is measured. So are the limits each anonymous /ws upgrade counts against, as a REST request and
// an authentication attempt: past 10 clients, the rest would be refused with 429. It listens on TEST_PORT (default 2568), like the tests.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { WebSocket, WebSocketServer } from "ws";
import { startTestServer } from "../test/support/server.js";

const { values: args } = parseArgs({
  options: {
    clients: { type: "string", default: "20" },
    seconds: { type: "string", default: "5" },
    window: { type: "string", default: "16" },
  },
});
const CLIENTS = Number(args.clients);
const SECONDS = Number(args.seconds);
const WINDOW = Number(args.window);
const WARM_UP_MS = 1000;
const REQUEST = (id: number) =>
  JSON.stringify({ event: "player:move", data: { x: 1032, z: 32 }, id: String(id) });

/** Opens a client and resolves once the server has spoken first (/ws) or at once (echo). */
function open(url: string, waitForFirstFrame: boolean): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("error", reject);
    if (waitForFirstFrame) socket.once("message", () => resolve(socket));
    else socket.once("open", () => resolve(socket));
  });
}

/** Replies per second over SECONDS, after a warm-up, with a progress line a second. */
async function measure(label: string, sockets: WebSocket[]): Promise<number> {
  let replies = 0;
  let nextId = 0;
  let running = true;
  for (const socket of sockets) {
    socket.on("message", (raw) => {
      // Only replies carry an envelope id; world:update and other pushes do not count.
      if ((JSON.parse(raw.toString()) as { id?: string }).id === undefined) return;
      replies++;
      if (running) socket.send(REQUEST(nextId++));
    });
    for (let i = 0; i < WINDOW; i++) socket.send(REQUEST(nextId++));
  }
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
  const start = performance.now();
  const counted = replies;
  for (let second = 1; second <= SECONDS; second++) {
    const before = replies;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    console.log(`  ${label} second ${second}: ${replies - before} replies`);
  }
  const rate = (replies - counted) / ((performance.now() - start) / 1000);
  running = false;
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const socket of sockets) socket.terminate();
  return rate;
}

const echo = new WebSocketServer({ host: "127.0.0.1", port: 0 });
echo.on("connection", (socket) =>
  socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary })),
);
await new Promise((resolve) => echo.once("listening", resolve));
const echoUrl = `ws://127.0.0.1:${(echo.address() as { port: number }).port}`;
const server = await startTestServer({
  RATE_LIMIT_WS_PER_SEC: "1000000",
  RATE_LIMIT_REST_PER_MIN: "1000000",
  RATE_LIMIT_AUTH_PER_MIN: "1000000",
});

console.log(
  `${CLIENTS} clients, ${WINDOW} requests in flight each, ${SECONDS} s per target after ${WARM_UP_MS} ms warm-up`,
);
console.log("bare ws echo server:");
const echoRate = await measure(
  "echo",
  await Promise.all(Array.from({ length: CLIENTS }, () => open(echoUrl, false))),
);
console.log("/ws (anonymous players joined to the world):");
const wsRate = await measure(
  "/ws ",
  await Promise.all(Array.from({ length: CLIENTS }, () => open(server.wsUrl, true))),
);

console.log("");
console.log(`bare ws echo: ${Math.round(echoRate)} messages/s`);
console.log(`/ws channel:  ${Math.round(wsRate)} messages/s`);
console.log(`ratio /ws ÷ echo: ${(wsRate / echoRate).toFixed(3)}`);

echo.close();
await server.stop();
process.exit(0);
