import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { currentSchemas, documentedSchemas, PROTOCOL_DOC } from "../../scripts/protocol-doc.js";
import { GAME_ERROR_CODES } from "../../src/game/errors.js";
import { tradeMessages, worldMessages } from "../../src/protocol/messages.js";

describe("docs/protocol.md", () => {
  const document = readFileSync(PROTOCOL_DOC, "utf8");

  it("has the JSON Schemas generated from the current zod schemas (else run npx tsx scripts/protocol-doc.ts)", () => {
    assert.deepEqual(documentedSchemas(document), currentSchemas());
  });

  it("lists every game error code, with the meaning the rules give it", () => {
    const section = document.slice(
      document.indexOf("## Error codes"),
      document.indexOf("from the channel and the rooms"),
    );
    const rows = [...section.matchAll(/^\| `([a-z_]+)` +\| (.+?) +\|$/gm)].map(([, code, meaning]) => [
      code,
      meaning,
    ]);
    assert.deepEqual(Object.fromEntries(rows), GAME_ERROR_CODES);
  });

  it("describes every client event", () => {
    for (const event of [...Object.keys(worldMessages), ...Object.keys(tradeMessages)]) {
      assert.ok(document.includes(`| \`${event}\``), `${event} is in the client events table`);
    }
  });
});
