// Generates .env.example and the variable table of docs/configuration.md from src/config/config.ts (names,
// defaults) and src/config/config-docs.ts (meanings).
//   npm run env:example             rewrites both
//   npm run env:example -- --check  exits 1 when either is out of date
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { environmentSchema } from "../src/config/config.js";
import { VARIABLE_DOCS, type VariableDoc } from "../src/config/config-docs.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ENV_EXAMPLE = path.join(ROOT, ".env.example");
export const CONFIGURATION_DOC = path.join(ROOT, "docs/configuration.md");
export const REGENERATE = "npm run env:example";
export const BEGIN_MARKER = `<!-- BEGIN GENERATED VARIABLES (${REGENERATE}) -->`;
export const END_MARKER = "<!-- END GENERATED VARIABLES -->";

export interface Variable {
  name: string;
  /** The schema's default as an environment value ("" when there is none). */
  value: string;
  /** The default as people read it. */
  shownDefault: string;
  /** Empty when src/config/config-docs.ts has no line for it. */
  meaning: string;
}

/** Every variable of the schema, in its order. */
export function variables(): Variable[] {
  const docs: Partial<Record<string, VariableDoc>> = VARIABLE_DOCS;
  return Object.entries(environmentSchema.shape).map(([name, schema]) => {
    const parsed = schema.safeParse(undefined);
    const fallback: unknown = parsed.success ? parsed.data : undefined;
    const value = Array.isArray(fallback)
      ? fallback.join(",")
      : fallback === undefined
        ? ""
        : String(fallback);
    const computed =
      Array.isArray(fallback) && fallback.length === 0 ? "empty" : value === "" ? "unset" : `\`${value}\``;
    const doc = docs[name];
    return { name, value, shownDefault: doc?.shownDefault ?? computed, meaning: doc?.meaning ?? "" };
  });
}

/** The variables src/config/config-docs.ts does not describe. */
export function undocumented(): string[] {
  return variables()
    .filter((variable) => variable.meaning === "")
    .map(({ name }) => name);
}

/** Markdown and backticks read plainly in a shell file. */
const plain = (text: string) => text.replaceAll("`", "");

export function envExample(): string {
  const lines = [
    "# Every variable the server reads, commented out at its default: all are optional in development.",
    "# Copy this file to .env and set what you change; the process's environment wins over the file.",
    "# See docs/configuration.md. Generated from src/config/config.ts and src/config/config-docs.ts: run",
    `# \`${REGENERATE}\` after changing them rather than editing this file.`,
  ];
  for (const { name, value, shownDefault, meaning } of variables()) {
    lines.push("", ...wrap(plain(meaning || "(not described yet)"), 98).map((line) => `# ${line}`));
    if (value === "" && shownDefault !== "unset") lines.push(`# Default: ${plain(shownDefault)}.`);
    lines.push(`# ${name}=${value}`);
  }
  return `${lines.join("\n")}\n`;
}

export function variableTable(): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  return markdownTable(
    ["Variable", "Default", "Meaning"],
    variables().map(({ name, shownDefault, meaning }) => [`\`${name}\``, cell(shownDefault), cell(meaning)]),
  );
}

/** A Markdown table with its columns padded to one width, as the formatter (Biome) writes it. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((text, column) => text.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

/** docs/configuration.md with its generated section replaced by `table`. */
export function withTable(document: string, table: string): string {
  const begin = document.indexOf(BEGIN_MARKER);
  const end = document.indexOf(END_MARKER);
  if (begin < 0 || end < begin)
    throw new Error(
      `${CONFIGURATION_DOC} lacks the markers ${BEGIN_MARKER} and ${END_MARKER}: put them back.`,
    );
  return `${document.slice(0, begin + BEGIN_MARKER.length)}\n\n${table}\n\n${document.slice(end)}`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const check = process.argv.includes("--check");
  const expected = new Map([
    [ENV_EXAMPLE, envExample()],
    [CONFIGURATION_DOC, withTable(readFileSync(CONFIGURATION_DOC, "utf8"), variableTable())],
  ]);
  let stale = false;
  for (const [file, text] of expected) {
    const current = readFileSync(file, { encoding: "utf8", flag: "a+" });
    if (current === text) continue;
    stale = true;
    if (!check) writeFileSync(file, text);
    console.log(`${check ? "out of date" : "written"}: ${path.relative(ROOT, file)}`);
  }
  const missing = undocumented();
  if (missing.length > 0)
    console.warn(
      `Not described in src/config/config-docs.ts (shown as such): ${missing.join(", ")}. Add their meanings.`,
    );
  if (check && (stale || missing.length > 0)) {
    console.error(`Run \`${REGENERATE}\` to regenerate.`);
    process.exit(1);
  }
}
