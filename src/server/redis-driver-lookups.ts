// A fix reaching into @colyseus/redis-driver's private internals, pinned to the version it was written
// for. RedisDriver.getRooms() shares one room lookup in flight among concurrent queries (in
// `_concurrentRoomCacheRequest`, and in `_roomCacheRequestByName` by room name) and forgets it only when it
// succeeds: a lookup that failed while Redis was away was handed to every later query, and the process
// turned every join away until it restarted. Turned off with FORGET_FAILED_ROOM_LOOKUPS=false.
import type { RedisDriver } from "@colyseus/redis-driver";

/** The driver version whose internals these are; package.json pins it exactly (test/scale checks both). */
export const PATCHED_DRIVER_VERSION = "0.18.3";

/** The driver's private parts this reaches: its shared lookups and the method that makes them. */
export interface LookupInternals {
  _concurrentRoomCacheRequest?: Promise<unknown>;
  _roomCacheRequestByName: Record<string, Promise<unknown> | undefined>;
  getRooms(roomName?: string): Promise<unknown>;
}

/** The internals the fix needs and does not find on `driver` (empty when all are there). */
export function missingLookupInternals(driver: RedisDriver): string[] {
  const internals = driver as unknown as Partial<LookupInternals>;
  const missing: string[] = [];
  if (typeof internals.getRooms !== "function") missing.push("getRooms()");
  const byName = internals._roomCacheRequestByName;
  if (typeof byName !== "object" || byName === null) missing.push("_roomCacheRequestByName");
  return missing;
}

/**
 * Makes `driver` forget a shared lookup once it fails, so that the next query asks Redis again; whether
 * it could (false when the internals are not where they were).
 */
export function forgetFailedLookups(driver: RedisDriver): boolean {
  if (missingLookupInternals(driver).length > 0) return false;
  const internals = driver as unknown as LookupInternals;
  const lookUp = internals.getRooms.bind(driver);
  internals.getRooms = (roomName) => {
    const request = lookUp(roomName);
    const shared = internals._concurrentRoomCacheRequest;
    request.catch(() => {
      // Only the failed ones: a query started since may have put a fresh lookup in their place.
      const key = String(roomName);
      if (internals._roomCacheRequestByName[key] === request) delete internals._roomCacheRequestByName[key];
      if (internals._concurrentRoomCacheRequest === shared) internals._concurrentRoomCacheRequest = undefined;
    });
    return request;
  };
  return true;
}
