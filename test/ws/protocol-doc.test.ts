import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { currentSchemas, documentedSchemas, PROTOCOL_DOC } from "../../scripts/protocol-doc.js";
import { tradeMessages, worldMessages } from "../../src/rooms/messages.js";

describe("docs/protocol.md", () => {
  const document = readFileSync(PROTOCOL_DOC, "utf8");

  it("has the JSON Schemas generated from the current zod schemas (else run npx tsx scripts/protocol-doc.ts)", () => {
    assert.deepEqual(documentedSchemas(document), currentSchemas());
  });

  it("describes every client event", () => {
    for (const event of [...Object.keys(worldMessages), ...Object.keys(tradeMessages)]) {
      assert.ok(document.includes(`| \`${event}\``), `${event} is in the client events table`);
    }
  });
});
