// Regenerates the JSON Schema section of docs/protocol.md from the zod schemas that validate client events.
//   npx tsx scripts/protocol-doc.ts           rewrites the section in place
//   npx tsx scripts/protocol-doc.ts --check   exits 1 when the section is out of date
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { type ZodType, z } from "zod";
import { tradeMessages, worldMessages } from "../src/protocol/messages.js";

export const PROTOCOL_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../docs/protocol.md");
export const BEGIN_MARKER = "<!-- BEGIN GENERATED SCHEMAS (npx tsx scripts/protocol-doc.ts) -->";
export const END_MARKER = "<!-- END GENERATED SCHEMAS -->";

const GROUPS: [string, Record<string, ZodType>][] = [
  ["World events (handled by the world)", worldMessages],
  ["Trade events (forwarded to the trade the connection is in)", tradeMessages],
];

/** Each client event's JSON Schema: the input side, as clients write it (optional fields may be left out). */
export function currentSchemas(): Map<string, unknown> {
  return new Map(
    GROUPS.flatMap(([, schemas]) =>
      Object.entries(schemas).map(
        ([event, schema]) => [event, z.toJSONSchema(schema, { io: "input" })] as const,
      ),
    ),
  );
}

/** One heading and JSON Schema per client event, world events first, then trade events. */
export function renderSchemas(): string {
  const schemas = currentSchemas();
  const sections = GROUPS.flatMap(([title, group]) => [
    `### ${title}`,
    ...Object.keys(group).map(
      (event) => `#### \`${event}\`\n\n\`\`\`json\n${JSON.stringify(schemas.get(event), null, 2)}\n\`\`\``,
    ),
  ]);
  return sections.join("\n\n");
}

/** The schemas the document's generated section shows, by event (whatever a formatter did to their layout). */
export function documentedSchemas(document: string): Map<string, unknown> {
  const section = document.slice(document.indexOf(BEGIN_MARKER), document.indexOf(END_MARKER));
  const blocks = section.matchAll(/#### `([^`]+)`\s+```json\n([\s\S]*?)\n```/g);
  return new Map([...blocks].map(([, event, json]) => [event ?? "", JSON.parse(json ?? "null") as unknown]));
}

/** The document with its generated section replaced by a fresh one. */
export function withFreshSchemas(document: string): string {
  const begin = document.indexOf(BEGIN_MARKER);
  const end = document.indexOf(END_MARKER);
  if (begin < 0 || end < begin)
    throw new Error(`${PROTOCOL_DOC} lacks the markers ${BEGIN_MARKER} … ${END_MARKER}`);
  return `${document.slice(0, begin + BEGIN_MARKER.length)}\n\n${renderSchemas()}\n\n${document.slice(end)}`;
}

function main(): void {
  const current = readFileSync(PROTOCOL_DOC, "utf8");
  if (process.argv.includes("--check")) {
    if (!isDeepStrictEqual(documentedSchemas(current), currentSchemas())) {
      console.error("docs/protocol.md is out of date: run npx tsx scripts/protocol-doc.ts");
      process.exit(1);
    }
    return;
  }
  const fresh = withFreshSchemas(current);
  writeFileSync(PROTOCOL_DOC, fresh);
  console.log(fresh === current ? "docs/protocol.md was up to date" : "docs/protocol.md updated");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
