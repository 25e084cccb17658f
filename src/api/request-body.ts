// A REST request's JSON body, read only once its route has taken it and its caller is known.
import express, { type Request, type RequestHandler, type Response, Router } from "express";
import { BODY_LIMIT_BYTES } from "../limits/body-size.js";

/**
 * Reads a JSON body up to the limit. Any JSON value is parsed (not only objects and arrays), so that
 * `null` or `5` fails validation, naming what is wrong, rather than being called malformed.
 */
const jsonBody: RequestHandler = express.json({ limit: BODY_LIMIT_BYTES, strict: false });

/**
 * `checkCaller`, then the body: a request is refused for its caller (401, 403) before its body is read,
 * so that what it carries (malformed, too large) does not decide its answer.
 */
export function callerThenBody(checkCaller: RequestHandler): RequestHandler {
  return Router().use(checkCaller, jsonBody);
}

/** Reads the JSON body within a handler, once it has checked its caller its own way. */
export function readBody(req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    jsonBody(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
  });
}
