// Manifest files on disk: the repository's manifests folder and the fetched cache.
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { MANIFEST_FILES } from "./files.js";

/** The known manifests present in `dir`, by file name. A missing directory is an empty set. */
export async function readManifestDir(dir: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  await Promise.all(
    MANIFEST_FILES.map(async (file) => {
      const text = await readIfExists(join(dir, file));
      if (text !== undefined) texts.set(file, text);
    }),
  );
  return texts;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Writes the files whose content differs from what `dir` holds. Each write goes through a temporary
 * file and a rename, so a crash never leaves a half-written manifest behind.
 */
export async function writeChangedFiles(
  dir: string,
  texts: ReadonlyMap<string, string>,
): Promise<{ changed: string[]; unchanged: string[] }> {
  const changed: string[] = [];
  const unchanged: string[] = [];
  for (const [file, text] of texts) {
    const path = join(dir, file);
    const current = await readIfExists(path);
    if (current === text) {
      unchanged.push(file);
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, text);
    await rename(temporary, path);
    changed.push(file);
  }
  return { changed, unchanged };
}

/**
 * Makes `dir` hold exactly `texts` among the known manifests: changed files are written (see
 * writeChangedFiles) and known files that `texts` lacks are removed. A cache kept so never mixes two
 * layouts of the same data (`items.json` beside the files of `items/`).
 */
export async function mirrorFiles(
  dir: string,
  texts: ReadonlyMap<string, string>,
): Promise<{ changed: string[]; unchanged: string[]; removed: string[] }> {
  const written = await writeChangedFiles(dir, texts);
  const removed: string[] = [];
  for (const file of MANIFEST_FILES) {
    if (texts.has(file)) continue;
    try {
      await rm(join(dir, file));
      removed.push(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return { ...written, removed };
}
