// Responses that clients may cache and revalidate: a strong ETag and `304 Not Modified`.
import type { Request, Response } from "express";

/** manifests (and the skill-unlock map with them) are cached for 5 minutes. */
export const CACHE_CONTROL = "public, max-age=300";

export interface CachedBody {
  body: Buffer;
  /** Quoted, e.g. `"abc"`. */
  etag: string;
}

export function sendCachedJson(req: Request, res: Response, { body, etag }: CachedBody): void {
  res.set({ "Cache-Control": CACHE_CONTROL, ETag: etag });
  // Express compares the request's If-None-Match (lists, weak tags, `*`) with the ETag just set.
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.status(200).type("application/json; charset=utf-8").end(body);
}

/** The protocol's error body for 404. */
export function sendNotFound(res: Response, message: string): void {
  res.status(404).json({ error: { code: "not_found", message } });
}
