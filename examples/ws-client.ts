// A minimal client of the /ws JSON channel (docs/protocol.md): signs in anonymously, walks two tiles,
// says hello, prints what it sees, and logs out after a few seconds.
//   npx tsx examples/ws-client.ts [url] [--seconds S]      (default ws://localhost:5555/ws, 5 s)
import { parseArgs } from "node:util";
import { WebSocket } from "ws";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: "string", default: "5" } },
});
const url = positionals[0] ?? "ws://localhost:5555/ws";
const seconds = Number(values.seconds);

/** A token for a fresh anonymous player, or undefined when the server gives none (the /ws channel then makes one up). */
async function anonymousToken(wsUrl: string): Promise<string | undefined> {
  const httpUrl = new URL("/api/v1/auth/anonymous", wsUrl.replace(/^ws/, "http"));
  const response = await fetch(httpUrl, { method: "POST" });
  if (!response.ok) {
    console.log(`anonymous sign-in refused (${response.status}); connecting without a token`);
    return undefined;
  }
  const { token, playerId } = (await response.json()) as { token: string; playerId: string };
  console.log(`signed in anonymously as player ${playerId}`);
  return token;
}

function describe(event: string, data: any): string {
  switch (event) {
    case "player:sync":
      return `I am ${data.name} at (${data.position.x},${data.position.z}), ${data.health}/${data.maxHealth} hp, ${data.coins} coins`;
    case "world:update": {
      const moved = data.updated.map(
        (entity: any) => `${entity.name}→(${entity.position.x},${entity.position.z})`,
      );
      return `tick ${data.tick}: ${data.added.length} appeared, ${data.removed.length} left${moved.length ? `, ${moved.join(" ")}` : ""}`;
    }
    case "chat:message":
      return `${data.fromPlayerName} says: ${data.message}`;
    case "error":
      return `error ${data.code}: ${data.message}`;
    default:
      return JSON.stringify(data);
  }
}

const token = await anonymousToken(url);
const socket = new WebSocket(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
const send = (event: string, data: unknown, id?: string) => socket.send(JSON.stringify({ event, data, id }));

// Walk and talk once, after the first player:sync (later ones follow changes of the inventory).
let greeted = false;
socket.on("message", (raw) => {
  const { event, data } = JSON.parse(raw.toString()) as { event: string; data: any };
  console.log(`← ${event}: ${describe(event, data)}`);
  if (event === "player:sync" && !greeted) {
    greeted = true;
    send("player:move", { x: data.position.x + 2, z: data.position.z }, "walk");
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
