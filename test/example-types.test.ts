import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import type * as Examples from "../examples/protocol.js";
import type { ChatMessage, PlayerSync, WorldEntity, WorldUpdate } from "../src/game/world-types.js";
import type { MessageError } from "../src/protocol/messages.js";

// Compile-time: what the server sends must fit the types the examples give their readers (npm run
// check fails here when a server type drifts from examples/protocol.ts).
type Fits<Sent extends Expected, Expected> = Sent;
type _Checked = [
  Fits<WorldEntity, Examples.WorldEntity>,
  Fits<WorldUpdate, Examples.WorldUpdate>,
  Fits<PlayerSync, Examples.PlayerSync>,
  Fits<ChatMessage, Examples.ChatMessage>,
  Fits<MessageError, Examples.ErrorEvent>,
];

describe("examples/", () => {
  it("import nothing from the server's source: a client author can copy them out", () => {
    for (const file of readdirSync("examples")) {
      const source = readFileSync(`examples/${file}`, "utf8");
      assert.doesNotMatch(source, /from "\.\.\//, `examples/${file} imports from outside examples/`);
    }
  });
});
