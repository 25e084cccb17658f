// Turns raw file texts into typed manifests, reporting every shape problem at once.
import {
  ITEM_FILES,
  MANIFEST_FILES,
  type ManifestFile,
  type Manifests,
  missingRequiredManifests,
  schemaOf,
} from "./files.js";
import { type Problem, problem } from "./problems.js";

export type ParsedFile<F extends ManifestFile> =
  | { ok: true; value: Manifests[F] }
  | { ok: false; problems: Problem[] };

export function parseManifestFile<F extends ManifestFile>(file: F, text: string): ParsedFile<F> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [problem(file, [], `not valid JSON (${(error as Error).message})`)] };
  }
  const result = schemaOf(file).safeParse(json);
  if (result.success) return { ok: true, value: result.data as Manifests[F] };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => problem(file, issue.path, issue.message)),
  };
}

const isItemFile = (file: string) => (ITEM_FILES as readonly string[]).includes(file);

/** Parses every known manifest from `texts` (file name to content); files it does not know are ignored. */
export function parseManifests(
  texts: ReadonlyMap<string, string>,
): { ok: true; manifests: Manifests } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const manifests: Partial<Record<ManifestFile, unknown>> = {};
  for (const file of MANIFEST_FILES) {
    const text = texts.get(file);
    if (text === undefined) {
      if (isItemFile(file)) manifests[file] = [];
      else problems.push(problem(file, [], "file is missing"));
      continue;
    }
    const parsed = parseManifestFile(file, text);
    if (parsed.ok) manifests[file] = parsed.value;
    else problems.push(...parsed.problems);
  }
  for (const file of missingRequiredManifests((name) => texts.has(name)).filter(isItemFile)) {
    problems.push(problem(file, [], "file is missing (and there is no items.json instead)"));
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, manifests: manifests as Manifests };
}

/** SKIP_MANIFESTS: takes the files as they are, without checking them against their schemas. */
export function trustManifests(texts: ReadonlyMap<string, string>): Manifests {
  const manifests: Partial<Record<ManifestFile, unknown>> = {};
  for (const file of MANIFEST_FILES) {
    const text = texts.get(file);
    if (text === undefined && !isItemFile(file)) throw new Error(`manifests: ${file} is missing`);
    manifests[file] = text === undefined ? [] : JSON.parse(text);
  }
  return manifests as Manifests;
}
