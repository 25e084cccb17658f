// The protocol's error codes and its error body, `{ "error": { "code", "message", "details"? } }`: what every
// part of the server tells a client that its request failed, whichever way it came (REST, /ws, a join).

export type ErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "request_timeout"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "headers_too_large"
  | "rate_limited"
  | "internal"
  | "unavailable";

/**
 * An error whose code and message are meant for the client. Rooms, limits and agents throw it without
 * knowing who asked; the REST API answers it with the code's HTTP status (src/api/errors.ts).
 */
export class ServiceError extends Error {
  override name = "ServiceError";
  constructor(
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
