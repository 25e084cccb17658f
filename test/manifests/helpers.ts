import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ManifestLog } from "../../src/manifests/loader.js";
import { readManifestDir } from "../../src/manifests/store.js";

export const SHIPPED_DIR = fileURLToPath(new URL("../../manifests/", import.meta.url));

export function shippedTexts(): Promise<Map<string, string>> {
  return readManifestDir(SHIPPED_DIR);
}

export type Json = any;

/** A copy of the shipped manifests with one file's JSON changed by `edit`. */
export async function editedTexts(file: string, edit: (json: Json) => void): Promise<Map<string, string>> {
  const texts = await shippedTexts();
  const json = JSON.parse(texts.get(file) ?? "null");
  edit(json);
  texts.set(file, JSON.stringify(json));
  return texts;
}

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "manifests-test-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export async function copyShipped(to: string): Promise<void> {
  await cp(SHIPPED_DIR, to, { recursive: true });
}

export function recordingLogger(): ManifestLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => lines.push(`info ${message}`),
    warn: (message) => lines.push(`warn ${message}`),
    error: (message) => lines.push(`error ${message}`),
  };
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export interface AssetHost {
  url: string;
  /** Paths requested so far. */
  requests: string[];
  close: () => Promise<void>;
}

/** An asset host serving `/health` and `/manifests/{file}` from `dir`, with per-file overrides. */
/** Serves `dir`'s manifests (`overrides` instead, where given); `failing` files are answered 500. */
export async function startAssetHost(
  dir: string,
  overrides = new Map<string, string>(),
  failing = new Set<string>(),
): Promise<AssetHost> {
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const path = req.url ?? "/";
    requests.push(path);
    if (path === "/health") {
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    const file = path.startsWith("/manifests/") ? path.slice("/manifests/".length) : undefined;
    if (file !== undefined && failing.has(file)) {
      res.writeHead(500).end();
      return;
    }
    const body =
      file === undefined
        ? undefined
        : (overrides.get(file) ?? (await readFile(join(dir, file), "utf8").catch(() => undefined)));
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "Content-Type": "application/json" }).end(body);
  });
  const url = await listen(server);
  return { url, requests, close: () => close(server) };
}

/** The address of a port nothing listens on. */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await close(server);
  return url;
}

/** GET with the path sent exactly as given (no normalisation of `..` or percent-escapes). */
export function rawGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/`, { path, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
