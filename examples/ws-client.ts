// A minimal client of the /ws JSON channel (docs/protocol.md): signs in anonymously, walks two tiles,
// says hello, prints what it sees, and logs out after a few seconds.
//   npx tsx examples/ws-client.ts [url] [--seconds S]      (default ws://localhost:5555/ws, 5 s)
import { parseArgs } from "node:util";
import { WebSocket } from "ws";
import type { ChatMessage, PlayerSync, WorldEntity } from "../src/game/world-types.js";

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

interface WorldUpdate {
  tick: number;
  added: WorldEntity[];
  updated: WorldEntity[];
  removed: string[];
}

function describe(event: string, data: unknown): string {
  switch (event) {
    case "player:sync": {
      const me = data as PlayerSync;
      return `I am ${me.name} at (${me.position.x},${me.position.z}), ${me.health}/${me.maxHealth} hp, ${me.coins} coins`;
    }
    case "world:update": {
      const update = data as WorldUpdate;
      const moved = update.updated.map(
        (entity) => `${entity.name}→(${entity.position.x},${entity.position.z})`,
      );
      return `tick ${update.tick}: ${update.added.length} appeared, ${update.removed.length} left${moved.length ? `, ${moved.join(" ")}` : ""}`;
    }
    case "chat:message": {
      const chat = data as ChatMessage;
      return `${chat.fromPlayerName} says: ${chat.message}`;
    }
    case "error": {
      const error = data as { code: string; message: string };
      return `error ${error.code}: ${error.message}`;
    }
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
