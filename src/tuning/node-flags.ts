import { readFileSync } from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "../config/paths.js";

/**
 * The Node flags an npm script gives the server (its collector settings: see docs/deploying.md, Production),
 * without a loader (`--import tsx`): for benchmarks and tests that start the server as that script
 * does. ecosystem.config.cjs reads start:prod's the same way.
 */
export function nodeFlagsOf(script: "start" | "start:prod"): string[] {
  const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8"));
  const words: string[] = manifest.scripts[script].split(/\s+/);
  return words.filter((word) => word.startsWith("--") && word !== "--import");
}
