import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { nodeFlagsOf } from "../src/tuning/node-flags.js";

describe("npm run dev", () => {
  it("runs the server as npm start does, with its Node flags, restarting on source changes", () => {
    const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as {
      scripts: Record<string, string>;
    };
    const words = scripts.dev!.split(/\s+/);
    assert.deepEqual(words.slice(0, 2), ["tsx", "watch"]);
    assert.equal(words.at(-1), "src/server/index.ts");
    for (const flag of nodeFlagsOf("start"))
      assert.ok(words.includes(flag), `npm start runs node with ${flag}: so must npm run dev`);
  });
});
