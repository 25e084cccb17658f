// A minimal Colyseus SDK client of the world: signs in anonymously, joins the room `world`, walks two
// tiles, says hello, prints what it sees, and leaves after a few seconds. It asks to be sent its view as
// world:update messages (the join option `updates: "messages"`); with --state it reads the room's
// schema state instead, as Colyseus clients do by default.
//   npx tsx examples/sdk-client.ts [url] [--state] [--seconds S]      (default http://localhost:5555, 5 s)
import { parseArgs } from "node:util";
import { Client } from "@colyseus/sdk";
import { anonymousToken, describe } from "./describe.js";
import type { PlayerSync } from "./protocol.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: "string", default: "5" }, state: { type: "boolean", default: false } },
});
const url = positionals[0] ?? "http://localhost:5555";
const seconds = Number(values.seconds);

const client = new Client(url);
// SDK clients always need a token: the room refuses a join without one.
client.auth.token = (await anonymousToken(url)) ?? "";
const room = await client.joinOrCreate("world", { updates: values.state ? "state" : "messages" });

// Walk and talk once, after the first player:sync (later ones follow changes of the inventory).
let me: string | undefined;
room.onMessage("*", (event, data) => {
  console.log(`← ${String(event)}: ${describe(String(event), data)}`);
  if (event === "player:sync" && !me) {
    const { id, position } = data as PlayerSync;
    me = id;
    room.send("player:move", { x: position.x + 2, z: position.z });
    room.send("player:chat", { message: "hello from examples/sdk-client.ts" });
  }
});

if (values.state) {
  // The state holds the entities in view, each with `x` and `z`, kept up to date by Colyseus.
  interface SeenEntity {
    name: string;
    x: number;
    z: number;
  }
  let last = "";
  room.onStateChange((state) => {
    const entities = (state as { entities?: Map<string, SeenEntity> }).entities;
    const self = me === undefined ? undefined : entities?.get(me);
    const line = `${entities?.size ?? 0} entities in view${self ? `, ${self.name}→(${self.x},${self.z})` : ""}`;
    if (line !== last) console.log(`state: ${line}`);
    last = line;
  });
}

room.onLeave((code) => {
  console.log(`left ${code}`);
  process.exit(0);
});
setTimeout(() => void room.leave(), seconds * 1000);
