import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const DOCUMENTS = ["README.md", ...readdirSync("docs").map((file) => path.join("docs", file))].filter(
  (file) => file.endsWith(".md"),
);

describe("README and docs", () => {
  it("say on the README's first screen (40 lines) how to start, test, what to open and where to read on", () => {
    const firstScreen = readFileSync("README.md", "utf8").split("\n").slice(0, 40).join("\n");
    for (const needed of [
      "npm install && npm start",
      "npm test",
      "npx mocha",
      "localhost:5555/",
      "/play",
      "/dashboard",
      "/health",
      "/metrics",
      "examples/ws-client.ts",
      "examples/sdk-client.ts",
      "(docs/api.md)",
      "(docs/protocol.md)",
      "(docs/configuration.md)",
      "(docs/deploying.md)",
      "(docs/architecture.md)",
    ])
      assert.ok(firstScreen.includes(needed), `the first 40 lines do not say ${needed}`);
  });

  it("link only to files that exist in the repository", () => {
    for (const document of DOCUMENTS) {
      const text = readFileSync(document, "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const file = path.join(path.dirname(document), target!);
        assert.ok(existsSync(file), `${document} links to ${target}, which is not there`);
      }
    }
  });

  it("cite no document outside the repository", () => {
    for (const document of DOCUMENTS) {
      const text = readFileSync(document, "utf8");
      assert.deepEqual(text.match(/\b(SPEC|CONTRACT|REFERENCE)\b/g) ?? [], [], document);
    }
  });
});
