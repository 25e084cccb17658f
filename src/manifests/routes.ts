// GET /manifests/{file} and GET /api/data/skill-unlocks.
import { readFile, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { type NextFunction, type Request, type Response, Router } from "express";
import type { GameData } from "../game/types.js";
import { ITEM_FILES } from "./files.js";
import { contentHash } from "./hash.js";
import { type CachedBody, sendCachedJson, sendNotFound } from "./http-cache.js";

/**
 * Lower-case names in lower-case folders, ending in `.json`. Checked on the raw, still
 * percent-encoded path, so `..`, encoded dots or slashes, backslashes and absolute paths never match.
 */
const MANIFEST_PATH = /^(?:\/[a-z0-9_-]+)+\.json$/;

const etagOf = (body: Buffer) => `"${contentHash(body)}"`;

const SPLIT_ITEM_FILES = ITEM_FILES.filter((file) => file !== "items.json");

/** Serves the JSON files under the folder `getDir()` names (it may change, e.g. to the cache). */
export function manifestRouter(getDir: () => string): Router {
  const cache = new Map<string, CachedBody & { mtimeMs: number; size: number }>();

  async function load(path: string): Promise<CachedBody | undefined> {
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const known = cache.get(path);
    if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) return known;
    const body = await readFile(path);
    const entry = { body, etag: etagOf(body), mtimeMs: info.mtimeMs, size: info.size };
    cache.set(path, entry);
    return entry;
  }

  /**
   * The interface's startup list names `items.json`, but the items may come split by type under `items/` (rule
   * 4): a client that asks for the one file is then served all of them as one list, as the server reads them.
   */
  let combined: (CachedBody & { from: string }) | undefined;
  async function combinedItems(dir: string): Promise<CachedBody | undefined> {
    const parts = (await Promise.all(SPLIT_ITEM_FILES.map((file) => load(join(dir, file))))).filter(
      (part) => part !== undefined,
    );
    if (parts.length === 0) return undefined;
    const from = parts.map((part) => part.etag).join();
    if (combined?.from !== from) {
      const body = Buffer.from(JSON.stringify(parts.flatMap((part) => JSON.parse(part.body.toString()))));
      combined = { body, etag: etagOf(body), from };
    }
    return combined;
  }

  const router = Router();
  // A plain middleware rather than a `/*file` route, so Express never decodes the path for us.
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const dir = resolve(getDir());
    const path = join(dir, req.path);
    let found = MANIFEST_PATH.test(req.path) && path.startsWith(dir + sep) ? await load(path) : undefined;
    if (!found && req.path === "/items.json") found = await combinedItems(dir);
    if (found) sendCachedJson(req, res, found);
    else sendNotFound(res, "No such manifest");
  });
  return router;
}

/** The same server-authoritative map for every caller; computed once per GameData. */
export function skillUnlocksRouter(getData: () => GameData): Router {
  const bodies = new WeakMap<GameData, CachedBody>();
  const router = Router();
  router.get("/", (req, res) => {
    const data = getData();
    let cached = bodies.get(data);
    if (!cached) {
      const body = Buffer.from(JSON.stringify(data.skillUnlocks));
      cached = { body, etag: etagOf(body) };
      bodies.set(data, cached);
    }
    sendCachedJson(req, res, cached);
  });
  return router;
}
