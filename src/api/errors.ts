// CONTRACT's error body, `{ "error": { "code", "message", "details"? } }`, for every 4xx and 5xx of the API.
import { STATUS_CODES } from "node:http";
import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "../logger.js";

export type ErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "internal"
  | "unavailable";

/** An error whose status, code and message are meant for the client. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export function errorBody(code: string, message: string, details?: unknown) {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** Whatever no route answered: unknown paths and methods, under /api or not. */
export const notFound: RequestHandler = (req) => {
  throw new ApiError(404, "not_found", `no endpoint ${req.method} ${req.baseUrl}${req.path}`);
};

/** HTTP's challenge, which a 401 must carry (RFC 9110): the scheme the server takes, a bearer token. */
export const BEARER_CHALLENGE = "Bearer";

/** The field name of a `details` entry about the body as a whole. */
export const WHOLE_BODY = "(body)";
/** The field name of a `details` entry about the request's path (a parameter that does not decode). */
const PATH = "(path)";

/** body-parser tags its failures with a `type`; all of them are the client's fault. */
const BODY_PARSER_ERRORS: Record<string, [number, ErrorCode, string]> = {
  "entity.parse.failed": [400, "bad_request", "the body is not valid JSON"],
  "entity.too.large": [413, "payload_too_large", "the body is too large"],
  "encoding.unsupported": [415, "unsupported_media_type", "the body's encoding is not supported"],
  "charset.unsupported": [415, "unsupported_media_type", "the body's charset is not supported"],
  "request.aborted": [400, "bad_request", "the request was aborted"],
  "request.size.invalid": [400, "bad_request", "the body's length does not match Content-Length"],
};

/** CONTRACT's codes of the 4xx statuses it names; any other takes its HTTP reason phrase in snake case. */
const CLIENT_ERROR_CODES: Partial<Record<number, ErrorCode>> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

interface ClientError {
  status: number;
  code: string;
  message: string;
  details?: unknown;
}

/**
 * The one error handler: ApiErrors, body-parser failures and the other client errors as they are,
 * anything else a logged 500 whose body says nothing about the cause (no stack, SQL or configuration
 * reaches the client).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    // A response already under way cannot change its status: Express's own handler closes the connection.
    if (res.headersSent) return next(error);
    const known: ClientError | undefined =
      error instanceof ApiError ? error : (fromBodyParser(error) ?? fromHttpError(error));
    if (known) {
      if (known.status === 401) res.set("WWW-Authenticate", BEARER_CHALLENGE);
      res.status(known.status).json(errorBody(known.code, known.message, known.details));
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, "request failed");
    res.status(500).json(errorBody("internal", "internal server error"));
  };
}

function fromBodyParser(error: unknown): ApiError | undefined {
  const type = (error as { type?: unknown } | undefined)?.type;
  const known = typeof type === "string" ? BODY_PARSER_ERRORS[type] : undefined;
  if (!known) return undefined;
  const [status, code, message] = known;
  // CONTRACT's bad_request lists the offending fields: here, the body as a whole.
  return new ApiError(
    status,
    code,
    message,
    code === "bad_request" ? [{ field: WHOLE_BODY, message }] : undefined,
  );
}

/**
 * Express, its router and body-parser mark what the client caused (a path that does not decode, a body
 * that does not inflate) with a 4xx `status`, and say with `expose` whether the message may be shown.
 */
function fromHttpError(error: unknown): ClientError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { status, statusCode, expose } = error as {
    status?: unknown;
    statusCode?: unknown;
    expose?: unknown;
  };
  const httpStatus = status ?? statusCode;
  if (typeof httpStatus !== "number" || httpStatus < 400 || httpStatus > 499 || expose === false)
    return undefined;
  const reason = STATUS_CODES[httpStatus] ?? "Bad Request";
  const code = CLIENT_ERROR_CODES[httpStatus] ?? reason.toLowerCase().replace(/\W+/g, "_");
  const message = error.message || reason;
  if (code !== "bad_request") return { status: httpStatus, code, message };
  // CONTRACT's bad_request lists the offending fields: the router's URIError is about a path parameter
  // that does not decode; anything else of this kind is a body that does not inflate.
  const field = error instanceof URIError ? PATH : WHOLE_BODY;
  return { status: httpStatus, code, message, details: [{ field, message }] };
}
