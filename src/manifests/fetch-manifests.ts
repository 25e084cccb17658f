// Downloads the startup list from an asset host. The host has no directory listing, so each known
// file is asked for by name; `/health` tells an unreachable host from files it does not serve.
import { MANIFEST_FILES } from "./files.js";

export interface FetchSettings {
  fetch: typeof fetch;
  timeoutMs: number;
}

export type Download =
  | { reachable: false; reason: string }
  | {
      reachable: true;
      texts: Map<string, string>;
      /** Files the host answered 404 or 410 for: it does not have them (any more). */
      notServed: string[];
      /** Files whose download failed otherwise (an error status, a timeout): the host may still have them. */
      failed: string[];
    };

export async function fetchManifests(host: string, settings: FetchSettings): Promise<Download> {
  const base = host.replace(/\/+$/, "");
  const get = (path: string) =>
    settings.fetch(`${base}${path}`, { signal: AbortSignal.timeout(settings.timeoutMs) });
  try {
    const health = await get("/health");
    if (!health.ok) return { reachable: false, reason: `health check answered ${health.status}` };
  } catch (error) {
    return { reachable: false, reason: reasonOf(error) };
  }
  const texts = new Map<string, string>();
  const notServed: string[] = [];
  const failed: string[] = [];
  await Promise.all(
    MANIFEST_FILES.map(async (file) => {
      try {
        const response = await get(`/manifests/${file}`);
        if (response.ok) texts.set(file, await response.text());
        else (response.status === 404 || response.status === 410 ? notServed : failed).push(file);
      } catch {
        failed.push(file);
      }
    }),
  );
  return { reachable: true, texts, notServed: notServed.sort(), failed: failed.sort() };
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
