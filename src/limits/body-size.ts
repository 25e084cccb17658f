import express, { type RequestHandler, Router } from "express";

/**
 * No endpoint takes more than a name or a short message; anything larger is refused with 413. The
 * matchmaker's routes hold bodies to it too (see matchmaking-limit.ts).
 */
export const BODY_LIMIT_BYTES = 16 * 1024;

/**
 * Reads a JSON body up to the limit. Any JSON value is parsed (not only objects and arrays), so that
 * `null` or `5` fails validation, naming what is wrong, rather than being called malformed.
 */
export function jsonBody(): RequestHandler {
  return express.json({ limit: BODY_LIMIT_BYTES, strict: false });
}

/**
 * `checkCaller`, then the body: a request is refused for its caller (401, 403) before its body is read,
 * so that what it carries (malformed, too large) does not decide its answer.
 */
export function callerThenBody(checkCaller: RequestHandler): RequestHandler {
  return Router().use(checkCaller, jsonBody());
}
