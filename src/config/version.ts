import { readFileSync } from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "./paths.js";

/** The service version reported by /health: package.json's. */
export const VERSION: string = JSON.parse(
  readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8"),
).version;
