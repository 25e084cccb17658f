// Generates the endpoint reference of docs/api.md from src/api/endpoints.ts, the bodies' JSON Schemas
// from the zod schemas the routes validate with.
//   npm run docs:api             rewrites the section in place
//   npm run docs:api -- --check  exits 1 when it is out of date
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { type Auth, ENDPOINTS } from "../src/api/endpoints.js";

export const API_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../docs/api.md");
export const REGENERATE = "npm run docs:api";
export const BEGIN_MARKER = `<!-- BEGIN GENERATED ENDPOINTS (${REGENERATE}) -->`;
export const END_MARKER = "<!-- END GENERATED ENDPOINTS -->";

const AUTH: Record<Auth, string> = {
  public: "none",
  bearer: "`Authorization: Bearer <token>`",
  "bearer, owner":
    "`Authorization: Bearer <token>` of the agent's owner (for the agents of `AGENTS`, an admin account)",
  metrics: "none in development; in production `Authorization: Bearer <METRICS_TOKEN>`",
  "agent process":
    "`Authorization: Bearer <token>` that the agent process signs with the `JWT_SECRET` it shares with the server",
};

export function endpointReference(): string {
  const sections = ENDPOINTS.map((endpoint) => {
    const lines = [
      `### \`${endpoint.method} ${endpoint.path}\``,
      "",
      endpoint.summary,
      "",
      `Auth: ${AUTH[endpoint.auth]}.`,
    ];
    if (endpoint.body) {
      const schema = z.toJSONSchema(endpoint.body, { io: "input" });
      lines.push("", "Body (JSON Schema):", "", "```json", JSON.stringify(schema, null, 2), "```");
    }
    lines.push("", "Answers:", "", ...endpoint.answers.map((answer) => `- ${answer}`));
    if (endpoint.errors?.length)
      lines.push("", "Errors:", "", ...endpoint.errors.map((error) => `- ${error}`));
    return lines.join("\n");
  });
  return sections.join("\n\n");
}

/** docs/api.md with its generated section replaced. */
export function withReference(document: string, reference: string): string {
  const begin = document.indexOf(BEGIN_MARKER);
  const end = document.indexOf(END_MARKER);
  if (begin < 0 || end < begin)
    throw new Error(`${API_DOC} lacks the markers ${BEGIN_MARKER} and ${END_MARKER}: put them back.`);
  return `${document.slice(0, begin + BEGIN_MARKER.length)}\n\n${reference}\n\n${document.slice(end)}`;
}

/** The text without its layout: the formatter rewraps the JSON blocks, which changes nothing they say. */
export function withoutLayout(text: string): string {
  return text.replace(/\s+/g, "");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const current = readFileSync(API_DOC, "utf8");
  const expected = withReference(current, endpointReference());
  if (withoutLayout(current) === withoutLayout(expected)) console.log("docs/api.md is up to date");
  else if (process.argv.includes("--check")) {
    console.error(`docs/api.md is out of date: run \`${REGENERATE}\``);
    process.exit(1);
  } else {
    writeFileSync(API_DOC, expected);
    console.log("written: docs/api.md (npm run format lays out its JSON blocks)");
  }
}
