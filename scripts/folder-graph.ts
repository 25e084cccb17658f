// Prints which folders of src/ import which, and fails when an import runs upward (to a folder of a later
// layer) or folders import each other in a cycle. `npm run check` runs it; docs/architecture.md explains
// the layers.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The folders of src/, lowest first: a folder may import its own layer's folders and those before it. */
const LAYERS: readonly (readonly string[])[] = [
  ["game", "telemetry"],
  ["config"],
  ["tuning"],
  ["net"],
  ["protocol"],
  ["limits", "manifests", "schema"],
  ["db"],
  ["auth"],
  ["agents"],
  ["ports"],
  ["rooms"],
  ["ws", "api", "web"],
  ["server"],
];

const SRC = path.resolve(import.meta.dirname, "../src");
const IMPORT = /(?:from|import)\s*\(?\s*["'](\.\.?\/[^"']+)["']/g;

const layerOf = new Map(
  LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)),
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** The top folder of src/ a file belongs to ("." for a file at src/'s root). */
function folderOf(file: string): string {
  const [first = ".", ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length ? first : ".";
}

/** folder -> folder -> the files whose imports make the edge. */
export function folderGraph(): Map<string, Map<string, Set<string>>> {
  const graph = new Map<string, Map<string, Set<string>>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const [, specifier = ""] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const to = folderOf(path.resolve(path.dirname(file), specifier));
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      const edges = graph.get(from) as Map<string, Set<string>>;
      if (!edges.has(to)) edges.set(to, new Set());
      edges.get(to)?.add(path.relative(SRC, file));
    }
  }
  return graph;
}

/** What breaks the layering: folders no layer names, imports to a later layer, and cycles. */
export function layeringProblems(graph: ReturnType<typeof folderGraph>): string[] {
  const problems: string[] = [];
  const folders = new Set([...graph.keys(), ...[...graph.values()].flatMap((edges) => [...edges.keys()])]);
  for (const folder of folders)
    if (!layerOf.has(folder))
      problems.push(
        folder === "."
          ? "src/ holds loose files: give each a folder"
          : `src/${folder} is in no layer: add it to LAYERS`,
      );
  for (const [from, edges] of graph)
    for (const [to, files] of edges) {
      const fromLayer = layerOf.get(from);
      const toLayer = layerOf.get(to);
      if (fromLayer !== undefined && toLayer !== undefined && toLayer > fromLayer)
        problems.push(`upward import ${from} -> ${to} (${[...files].join(", ")})`);
    }
  for (const cycle of cycles(graph)) problems.push(`import cycle ${cycle.join(" -> ")}`);
  return problems;
}

function cycles(graph: ReturnType<typeof folderGraph>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (folder: string, trail: string[]) => {
    const at = trail.indexOf(folder);
    if (at >= 0) return void found.push([...trail.slice(at), folder]);
    if (done.has(folder)) return;
    for (const next of graph.get(folder)?.keys() ?? []) visit(next, [...trail, folder]);
    done.add(folder);
  };
  for (const folder of graph.keys()) visit(folder, []);
  return found;
}

if (import.meta.filename === process.argv[1]) {
  const graph = folderGraph();
  for (const folders of LAYERS)
    for (const folder of folders) {
      const imports = [...(graph.get(folder)?.keys() ?? [])].sort();
      console.log(`${folder.padEnd(10)} -> ${imports.join(", ") || "(nothing)"}`);
    }
  const problems = layeringProblems(graph);
  for (const problem of problems) console.error(`✖ ${problem}`);
  if (problems.length) process.exit(1);
  console.log("folders: no upward import, no cycle");
}
