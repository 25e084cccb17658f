// A world room's client as every part of the room sees it: the identity onAuth gave it and its session.
import type { Client, Deferred } from "@colyseus/core";
import type { PlayerAuth } from "../ports/world-seats.js";
import type { EncodedUpdate } from "../protocol/encoded-json.js";
import { isJsonClient } from "../protocol/json-client.js";
import { countMessagesOut } from "../telemetry/metrics.js";

export interface Session {
  isAdmin: boolean;
  /** Set while the seat of a dropped client is kept; rejecting it ends the wait. */
  reconnection?: Deferred<Client>;
  /** An admin removed the session (`/kick`, `/ban`): its seat is not kept for a reconnection. */
  removed?: boolean;
}

export type WorldClient = Client<{ auth: PlayerAuth; userData: Session }>;

/** The player of an authenticated client (onAuth always sets it before any other hook runs). */
export function playerOf(client: WorldClient): PlayerAuth {
  if (!client.auth) throw new Error(`client ${client.sessionId} has no identity`);
  return client.auth;
}

/** Sends a client its view's update: a /ws client the protocol's world:update, an SDK client one room message. */
export function sendUpdate(client: Client, update: EncodedUpdate): void {
  countMessagesOut("world:update");
  if (isJsonClient(client)) client.send("world:update", update);
  else client.enqueueRaw(update.roomMessage());
}
