// A minimal client of the /ws JSON channel (docs/protocol.md): signs in anonymously, walks two tiles,
// says hello, prints what it sees, and logs out after a few seconds.
//   npx tsx examples/ws-client.ts [url] [--seconds S]      (default ws://localhost:5555/ws, 5 s)
import { parseArgs } from "node:util";
import { WebSocket } from "ws";
import { anonymousToken, describe } from "./describe.js";
import type { PlayerSync } from "./protocol.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: "string", default: "5" } },
});
const url = positionals[0] ?? "ws://localhost:5555/ws";
const seconds = Number(values.seconds);

const token = await anonymousToken(url);
const socket = new WebSocket(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
const send = (event: string, data: unknown, id?: string) => socket.send(JSON.stringify({ event, data, id }));

// Walk and talk once, after the first player:sync (later ones follow changes of the inventory).
let greeted = false;
socket.on("message", (raw) => {
  const { event, data } = JSON.parse(raw.toString()) as { event: string; data: unknown };
  console.log(`← ${event}: ${describe(event, data)}`);
  if (event === "player:sync" && !greeted) {
    greeted = true;
    const { position } = data as PlayerSync;
    send("player:move", { x: position.x + 2, z: position.z }, "walk");
    send("player:chat", { message: "hello from examples/ws-client.ts" });
  }
});
socket.on("close", (code, reason) => {
  console.log(`closed ${code} ${reason.toString()}`);
  process.exit(code === 1000 ? 0 : 1);
});
socket.on("error", (error) => {
  console.error(`connection failed: ${error.message}`);
  process.exit(1);
});
setTimeout(() => socket.close(1000, "bye"), seconds * 1000);
