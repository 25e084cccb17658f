import { ServerError } from "@colyseus/core";

/** What a client is told while this process cannot reach the room listings it shares through Redis. */
export const LISTINGS_UNREACHABLE_MESSAGE =
  "the server cannot reach its shared room listings (Redis is down); retry in a few seconds";

/**
 * A room lookup that failed because Redis could not be reached. A ServerError, so that the matchmaker
 * answers an SDK's join with its status (503) and message rather than the Redis client's own.
 */
export class ListingsUnreachableError extends ServerError {
  override name = "ListingsUnreachableError";
  constructor(cause: unknown) {
    super(503, LISTINGS_UNREACHABLE_MESSAGE, { cause });
  }
}
