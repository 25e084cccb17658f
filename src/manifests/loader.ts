// Startup loading of the game data, following the interface's manifest loading rules:
//  1. production always fetches `{cdn}/manifests/`, updates only changed files in the cache (and drops
//     those the host no longer serves), and
//     falls back to the cache when the host is unreachable (or a downloaded file is corrupt);
//  2. development skips the fetch when the local manifests exist;
//  3./4. when required local manifests are missing and the local asset host is down, development
//     bootstraps from the production host;
//  5. the files are the startup list of files.ts.
// A set of files is written to disk only once it validated, so the cache always holds a good copy.

import { StartupError } from "../config/startup-error.js";
import type { GameData } from "../game/types.js";
import { type Download, type FetchSettings, fetchManifests } from "./fetch-manifests.js";
import { isManifestFile, MANIFEST_FILES, missingRequiredManifests } from "./files.js";
import { buildGameData } from "./game-data.js";
import { parseManifestFile, trustManifests } from "./parse.js";
import { formatReport } from "./problems.js";
import { mirrorFiles, readManifestDir, writeChangedFiles } from "./store.js";
import { validateManifests } from "./validate.js";

const DEFAULT_TIMEOUT_MS = 10_000;

/** Where the loader reports what it did: the server's logger, or a test's recorder. */
export interface ManifestLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface LoadOptions {
  env: "production" | "development";
  /** The repository's manifests folder: development's source. */
  manifestDir: string;
  /** Production's copy of the asset host's manifests; development's last good copy. */
  cacheDir: string;
  /** The asset host (Config's cdnUrl). */
  cdnUrl: string;
  /** Where development bootstraps from when the local asset host is down (Config's PRODUCTION_CDN_URL). */
  productionCdnUrl: string;
  /** SKIP_MANIFESTS: no fetch, no validation; the local files are used as they are. */
  skipManifests: boolean;
  fetch?: typeof fetch;
  timeoutMs?: number;
  log: ManifestLog;
}

export interface LoadedGameData {
  data: GameData;
  /** The folder GET /manifests/ should serve. */
  dir: string;
}

export async function loadGameData(options: LoadOptions): Promise<LoadedGameData> {
  if (options.skipManifests) {
    options.log.info(
      `manifests: SKIP_MANIFESTS set, fetch and validation skipped; using ${options.manifestDir}`,
    );
    return {
      data: buildGameData(trustManifests(await readManifestDir(options.manifestDir))),
      dir: options.manifestDir,
    };
  }
  return options.env === "production" ? loadProduction(options) : loadDevelopment(options);
}

async function loadProduction(options: LoadOptions): Promise<LoadedGameData> {
  const { cacheDir, cdnUrl, log } = options;
  const cached = await readManifestDir(cacheDir);
  const download = await fetchFrom(cdnUrl, options);
  if (!download.reachable) {
    if (cached.size === 0) {
      throw new StartupError(
        `manifests: asset host ${cdnUrl} is unreachable (${download.reason}) and ${cacheDir} holds no cached copy. ` +
          "Set PUBLIC_CDN_URL to the asset host that serves /manifests/ (or MANIFEST_CACHE_DIR to a folder holding a copy).",
      );
    }
    log.warn(
      `manifests: asset host ${cdnUrl} is unreachable (${download.reason}); using ${cached.size} cached files in ${cacheDir}`,
    );
    return { data: validOrThrow(cached, cacheDir, log), dir: cacheDir };
  }
  logDownload(log, cdnUrl, download);
  // What the host no longer serves is gone from the data, cached or not: it may have changed its layout.
  const stillServed = new Map([...cached].filter(([file]) => !download.notServed.includes(file)));
  const texts = overlay(stillServed, download.texts, cdnUrl, log);
  const data = validOrThrow(texts, cdnUrl, log);
  await saveAndLog(cacheDir, texts, log);
  return { data, dir: cacheDir };
}

async function loadDevelopment(options: LoadOptions): Promise<LoadedGameData> {
  const { manifestDir, log } = options;
  const local = await readManifestDir(manifestDir);
  const missing = missingRequiredManifests((file) => local.has(file));
  if (missing.length === 0) {
    log.info(`manifests: development, ${local.size} local files in ${manifestDir}, fetch skipped`);
    return useOrFallBack(local, manifestDir, options);
  }
  const { host, download } = await bootstrapDownload(missing, options);
  logDownload(log, host, download);
  // Only fill the gaps: a developer's edits to the files that are there stay untouched.
  const gaps = new Map([...download.texts].filter(([file]) => !local.has(file)));
  return useOrFallBack(overlay(local, gaps, host, log), manifestDir, options);
}

async function bootstrapDownload(
  missing: string[],
  options: LoadOptions,
): Promise<{ host: string; download: Download & { reachable: true } }> {
  const { cdnUrl, manifestDir, productionCdnUrl, log } = options;
  log.info(
    `manifests: required files missing in ${manifestDir}: ${missing.join(", ")}; fetching from ${cdnUrl}`,
  );
  const local = await fetchFrom(cdnUrl, options);
  if (local.reachable) return { host: cdnUrl, download: local };
  log.warn(
    `manifests: local asset host ${cdnUrl} is unreachable (${local.reason}); bootstrapping from ${productionCdnUrl}`,
  );
  const production = await fetchFrom(productionCdnUrl, options);
  if (production.reachable) return { host: productionCdnUrl, download: production };
  throw new StartupError(
    `manifests: required files missing (${missing.join(", ")}) and neither ${cdnUrl} nor ${productionCdnUrl} ` +
      `is reachable (${production.reason}). Put them in ${manifestDir}, or set PUBLIC_CDN_URL to an asset host that serves them.`,
  );
}

/** Development: valid files are used and kept as the last good copy; invalid ones fall back to it. */
async function useOrFallBack(
  texts: Map<string, string>,
  dir: string,
  options: LoadOptions,
): Promise<LoadedGameData> {
  const { cacheDir, log } = options;
  const validation = validateManifests(texts);
  if (validation.ok) {
    log.info(`manifests: ${texts.size} files valid (${summary(validation.data)})`);
    await writeChangedFiles(dir, texts);
    await mirrorFiles(cacheDir, texts);
    return { data: validation.data, dir };
  }
  const report = formatReport(validation.problems);
  const lastGood = validateManifests(await readManifestDir(cacheDir));
  if (!lastGood.ok)
    throw new StartupError(
      `${report}\n(and there is no valid last good copy in ${cacheDir}): fix the files named above.`,
    );
  log.error(
    `manifests: !!! ${dir} has INVALID game data, the server runs on the last good copy !!!\n${report}`,
  );
  log.warn(`manifests: using the last good copy in ${cacheDir} (${summary(lastGood.data)})`);
  return { data: lastGood.data, dir: cacheDir };
}

function validOrThrow(texts: ReadonlyMap<string, string>, source: string, log: ManifestLog): GameData {
  const validation = validateManifests(texts);
  if (!validation.ok)
    throw new StartupError(`manifests from ${source}: ${formatReport(validation.problems)}`);
  log.info(`manifests: ${texts.size} files valid (${summary(validation.data)})`);
  return validation.data;
}

/** Downloaded files replace the base copies, except corrupt ones, which leave the base copy (if any) in place. */
function overlay(
  base: ReadonlyMap<string, string>,
  downloaded: ReadonlyMap<string, string>,
  host: string,
  log: ManifestLog,
): Map<string, string> {
  const texts = new Map(base);
  const corrupt: string[] = [];
  for (const [file, text] of downloaded) {
    const parsed = isManifestFile(file) ? parseManifestFile(file, text) : undefined;
    // Without a previous copy the corrupt one stays: the check then names what is wrong with it, not a
    // file that is missing.
    if (!parsed || parsed.ok || !base.has(file)) texts.set(file, text);
    if (parsed && !parsed.ok) {
      const kept = base.has(file) ? "the previous copy kept" : "no previous copy";
      corrupt.push(`${file} (${parsed.problems[0]?.reason}; ${kept})`);
    }
  }
  if (corrupt.length > 0)
    log.warn(`manifests: corrupt downloads from ${host} ignored: ${corrupt.join(", ")}`);
  return texts;
}

async function saveAndLog(dir: string, texts: ReadonlyMap<string, string>, log: ManifestLog): Promise<void> {
  const { changed, unchanged, removed } = await mirrorFiles(dir, texts);
  const which = changed.length > 0 ? ` (${changed.join(", ")})` : "";
  const gone = removed.length > 0 ? `, ${removed.length} removed (${removed.join(", ")})` : "";
  log.info(
    `manifests: cache ${dir} updated: ${changed.length} changed${which}, ${unchanged.length} unchanged${gone}`,
  );
}

function logDownload(log: ManifestLog, host: string, download: Download & { reachable: true }): void {
  const { notServed, failed } = download;
  const missing = notServed.length > 0 ? `; not served: ${notServed.join(", ")}` : "";
  const failures = failed.length > 0 ? `; failed, cached copies kept: ${failed.join(", ")}` : "";
  log.info(`manifests: fetched ${download.texts.size} files from ${host}${missing}${failures}`);
}

function summary(data: GameData): string {
  return `${data.items.size} items, ${data.npcs.size} NPCs, ${data.areas.length} areas`;
}

/** Says what it waits for before it does: a host that does not answer holds the start up to twice the timeout. */
function fetchFrom(host: string, options: LoadOptions): Promise<Download> {
  const settings = fetchSettings(options);
  options.log.info(
    `manifests: fetching ${MANIFEST_FILES.length} files from ${host}/manifests/ (up to ${settings.timeoutMs / 1000} s for its /health, then as long for the files)`,
  );
  return fetchManifests(host, settings);
}

function fetchSettings(options: LoadOptions): FetchSettings {
  return { fetch: options.fetch ?? fetch, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS };
}
