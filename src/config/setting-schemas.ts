// The schema builders of the environment variables in config.ts: strings, flags, numbers, timers,
// lists, origins and addresses, each with the check and the message its variables share.
import { z } from "zod";

// Blank values never get here (see withoutBlanks in config.ts): a string is trimmed, and is never empty.
export const optionalString = z.string().trim().optional();

export const flag = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((value) => value === "true" || value === "1");

/** A flag that is on unless set to false. */
export const flagOn = z
  .enum(["true", "false", "1", "0"])
  .default("true")
  .transform((value) => value === "true" || value === "1");

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Node's timers take at most 2^31 - 1 ms (about 24.8 days): a longer one fires at once, every millisecond. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;
const TIMER_TOO_LONG = `must be at most ${LONGEST_TIMER_MS} ms (about 24.8 days), the longest timer Node keeps`;

/** Milliseconds a timer waits: from `min` to the longest timer Node keeps. */
export const timerMs = (fallback: number, min = 1) =>
  z.coerce.number().int().min(min).max(LONGEST_TIMER_MS, TIMER_TOO_LONG).default(fallback);

/** The list variables' schemas: for these, an empty value is an empty list, not an unset variable. */
const listSchemas = new WeakSet<z.ZodType>();

/** Whether `schema` is a list's (made by list or originList). */
export const isListSchema = (schema: z.ZodType): boolean => listSchemas.has(schema);

/** Comma-separated list; blank entries are dropped. */
export const list = (fallback: string[]) => {
  const schema = z
    .string()
    .optional()
    .transform((value) =>
      value === undefined
        ? fallback
        : value
            .split(",")
            .map((entry) => entry.trim())
            .filter(Boolean),
    );
  listSchemas.add(schema);
  return schema;
};

/** A web origin as a browser sends it: a scheme and a host (and port), no path, no wildcard. */
function isOrigin(entry: string): boolean {
  if (!URL.canParse(entry)) return false;
  const url = new URL(entry);
  return /^https?:$/.test(url.protocol) && !url.hostname.includes("*") && `${url.origin}/` === url.href;
}

/** A list of web origins: an entry that is not one (`app.example.com`, `*`) would never match. */
export const originList = (fallback: string[]) => {
  const schema = list(fallback).pipe(
    z.array(
      z.string().refine(isOrigin, {
        error: (issue) =>
          `${String(issue.input)} is not an origin: write it as a browser sends it, e.g. https://app.example.com (no path, no wildcard: CORS_PREVIEW_HOST_SUFFIXES takes every subdomain of a host)`,
      }),
    ),
  );
  listSchemas.add(schema);
  return schema;
};

/** An HTTP address: `localhost:11434` (no scheme) would read as a URL of scheme `localhost:`. */
export const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// address" });
export const optionalUrl = optionalString.pipe(httpUrl.optional());

/** The public WebSocket address ends in `/ws`. */
export const webSocketUrl = optionalString.pipe(
  z
    .url({ protocol: /^wss?$/, error: "must be a ws:// or wss:// address" })
    .refine((url) => new URL(url).pathname.replace(/\/+$/, "").endsWith("/ws"), "must end in /ws")
    .optional(),
);
