// The API's answers to what failed: a ServiceError with its code's status, the framework's own client
// errors, and a 500 that tells nothing of the cause.
import { STATUS_CODES } from "node:http";
import type { ErrorRequestHandler, RequestHandler } from "express";
import { type ErrorCode, errorBody, ServiceError } from "../protocol/errors.js";
import type { Logger } from "../telemetry/logger.js";

/** The HTTP status of each of the protocol's error codes. */
export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

/** Whatever no route answered: unknown paths and methods, under /api or not. */
export const notFound: RequestHandler = (req) => {
  throw new ServiceError("not_found", `no endpoint ${req.method} ${req.baseUrl}${req.path}`);
};

/** HTTP's challenge, which a 401 must carry (RFC 9110): the scheme the server takes, a bearer token. */
export const BEARER_CHALLENGE = "Bearer";

/** The field name of a `details` entry about the body as a whole. */
export const WHOLE_BODY = "(body)";
/** The field name of a `details` entry about the request's path (a parameter that does not decode). */
const PATH = "(path)";

/** body-parser tags its failures with a `type`; all of them are the client's fault. */
const BODY_PARSER_ERRORS: Record<string, [ErrorCode, string]> = {
  "entity.parse.failed": ["bad_request", "the body is not valid JSON"],
  "entity.too.large": ["payload_too_large", "the body is too large"],
  "encoding.unsupported": ["unsupported_media_type", "the body's encoding is not supported"],
  "charset.unsupported": ["unsupported_media_type", "the body's charset is not supported"],
  "request.aborted": ["bad_request", "the request was aborted"],
  "request.size.invalid": ["bad_request", "the body's length does not match Content-Length"],
};

/** The protocol's codes of the 4xx statuses it names; any other takes its HTTP reason phrase in snake case. */
const CLIENT_ERROR_CODES = new Map(
  Object.entries(STATUS_OF).map(([code, status]) => [status, code as ErrorCode]),
);

interface ClientError {
  status: number;
  code: string;
  message: string;
  details?: unknown;
}

/**
 * The one error handler: ServiceErrors, body-parser failures and the other client errors as they are,
 * anything else a logged 500 whose body says nothing about the cause (no stack, SQL or configuration
 * reaches the client).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    // A response already under way cannot change its status: Express's own handler closes the connection.
    if (res.headersSent) return next(error);
    const known: ClientError | undefined =
      error instanceof ServiceError
        ? { status: STATUS_OF[error.code], code: error.code, message: error.message, details: error.details }
        : (fromBodyParser(error) ?? fromHttpError(error));
    if (known) {
      if (known.status === 401) res.set("WWW-Authenticate", BEARER_CHALLENGE);
      res.status(known.status).json(errorBody(known.code, known.message, known.details));
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, "request failed");
    res.status(500).json(errorBody("internal", "internal server error"));
  };
}

function fromBodyParser(error: unknown): ClientError | undefined {
  const type = (error as { type?: unknown } | undefined)?.type;
  const known = typeof type === "string" ? BODY_PARSER_ERRORS[type] : undefined;
  if (!known) return undefined;
  const [code, message] = known;
  const status = STATUS_OF[code];
  // The protocol's bad_request lists the offending fields: here, the body as a whole.
  return {
    status,
    code,
    message,
    details: code === "bad_request" ? [{ field: WHOLE_BODY, message }] : undefined,
  };
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
  const code = CLIENT_ERROR_CODES.get(httpStatus) ?? reason.toLowerCase().replace(/\W+/g, "_");
  const message = error.message || reason;
  if (code !== "bad_request") return { status: httpStatus, code, message };
  // The protocol's bad_request lists the offending fields: the router's URIError is about a path parameter
  // that does not decode; anything else of this kind is a body that does not inflate.
  const field = error instanceof URIError ? PATH : WHOLE_BODY;
  return { status: httpStatus, code, message, details: [{ field, message }] };
}
