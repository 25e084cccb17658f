import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The project folder (the one with package.json), whether running from src/ with tsx or from dist/. */
export const PROJECT_ROOT: string = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("package.json not found above the server's code");
    dir = parent;
  }
  return dir;
})();

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, "drizzle");
export const LOCAL_MANIFESTS_DIR = path.join(PROJECT_ROOT, "manifests");
