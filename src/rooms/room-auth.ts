import { type AuthContext, ServerError } from "@colyseus/core";
import { accountWithCharacter, NAMES_EXHAUSTED_MESSAGE, resolveAccount } from "../auth/accounts.js";
import { bearerToken, type Identity } from "../auth/tokens.js";
import { verifyToken } from "../auth/verify.js";
import { NamesExhaustedError } from "../db/characters.js";
import { bannedMessage } from "../game/moderation.js";
import { clientKey } from "../limits/rate-limits.js";
import type { Runtime } from "../ports/runtime.js";
import type { PlayerAuth } from "../ports/world-seats.js";

/**
 * Identities verified by the /ws channel at a connection's upgrade, by the context it joins rooms with.
 * The connection stays signed in for its life: it cannot present a fresh token later, so the rooms it
 * joins afterwards (trades) must not check the one it opened with again, which may have expired since.
 */
const verifiedAtUpgrade = new WeakMap<AuthContext, Identity>();

export function vouchFor(context: AuthContext, identity: Identity): void {
  verifiedAtUpgrade.set(context, identity);
}

/** The token of an SDK client (`client.auth.token`) or of a /ws upgrade (header or `?token=`). */
export function tokenOf(context: AuthContext): string | undefined {
  if (context.token) return context.token;
  return bearerToken(context.headers.get("authorization"));
}

/**
 * Verifies the token and resolves the character the client plays: `characterId` when given (it must be
 * the account's), otherwise the account's character, created on first sight.
 */
export async function authenticatePlayer(
  runtime: Runtime,
  context: AuthContext,
  characterId: string | undefined,
  options: {
    /** Characters whose seat in the world, found in its memory, answers without the database (a trade's). */
    seatsFirst?: readonly string[];
  } = {},
): Promise<PlayerAuth> {
  const identity = await identityOf(runtime, context);
  const seatAs = (id: string | undefined) => {
    const seat = runtime.worldSeats.of(identity.subject, id);
    // The world was told of a ban (see WorldSessions.moderate): its seat is refused as the database would.
    if (seat?.bannedUntil && seat.bannedUntil > Date.now()) throw new BannedError(new Date(seat.bannedUntil));
    return seat && { ...seat, ip: context.ip };
  };
  for (const id of options.seatsFirst ?? []) {
    const seat = seatAs(id);
    if (seat) return seat;
  }
  try {
    const { account, characterId: id } = characterId
      ? { account: await resolveAccount(runtime, identity), characterId }
      : await accountWithCharacter(runtime, identity).catch((error) => {
          if (error instanceof NamesExhaustedError) throw new ServerError(503, NAMES_EXHAUSTED_MESSAGE);
          throw error;
        });
    await runtime.sightings.seen([account.id]);
    const character = await runtime.characters.summary(id);
    if (!character) throw new ServerError(404, `no character ${id}`);
    if (character.accountId !== account.id)
      throw new ServerError(403, "that character belongs to another account");
    if (account.bannedUntil && account.bannedUntil.getTime() > Date.now())
      throw new BannedError(account.bannedUntil);
    const { subject } = identity;
    return {
      accountId: account.id,
      characterId: character.id,
      characterName: character.name,
      subject,
      ip: context.ip,
      mutedUntil: account.mutedUntil?.getTime() ?? null,
      bannedUntil: account.bannedUntil?.getTime() ?? null,
    };
  } catch (error) {
    if (error instanceof ServerError) throw error;
    // The database failed: a player whose seat the world still holds (a dropped connection coming back)
    // takes it from memory; anyone else is told to come back, not that the join is wrong.
    const seat = seatAs(characterId || undefined);
    if (seat) {
      runtime.logger.warn(
        { err: error, characterId: seat.characterId },
        "a login the database could not answer took its seat from the world's memory",
      );
      return { ...seat, ip: context.ip };
    }
    throw databaseUnavailable(runtime, error);
  }
}

/** A banned account's login (see Moderation), refused with until when, to the minute. */
export class BannedError extends ServerError {
  constructor(until: Date) {
    super(403, bannedMessage(until.getTime()));
  }
}

/** A join's database step failed: logged, and told as a refusal to retry (never the query). */
export function databaseUnavailable(runtime: Pick<Runtime, "logger">, error: unknown): ServerError {
  runtime.logger.error({ err: error }, "a join failed: the database did not answer");
  return new ServerError(503, DATABASE_UNAVAILABLE);
}

/** What a client is told of a join that the database could not answer: a refusal to retry later. */
export const DATABASE_UNAVAILABLE = "the database is unavailable: try again shortly";

/** What a client is told of a join that failed inside the server: only that it did. */
export const INTERNAL_JOIN_FAILURE = "internal error: the join failed, try again";

/**
 * Runs a step of a join whose failure the client is told: a ServerError as it is, anything else (a
 * database's, whose message may quote SQL) logged and told only as an internal error.
 */
export async function toldSafely<T>(runtime: Pick<Runtime, "logger">, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ServerError) throw error;
    runtime.logger.error({ err: error }, "a join failed");
    throw new ServerError(500, INTERNAL_JOIN_FAILURE);
  }
}

/** The identity a connection was admitted with, if it was checked already (see vouchFor). */
export function vouchedIdentity(context: AuthContext): Identity | undefined {
  return verifiedAtUpgrade.get(context);
}

/** The identity a join's token proves, verified once: the join's later steps take it from the context. */
export async function identityOf(runtime: Runtime, context: AuthContext): Promise<Identity> {
  const vouched = vouchedIdentity(context);
  if (vouched) return vouched;
  const identity = await verifiedIdentity(runtime, context);
  vouchFor(context, identity);
  return identity;
}

async function verifiedIdentity(runtime: Runtime, context: AuthContext): Promise<Identity> {
  const token = tokenOf(context);
  if (!token) throw new ServerError(401, "a bearer token is required");
  const verified = await verifyToken(runtime, token, clientKey(context.ip));
  if (verified.refusal) throw new ServerError(verified.refusal.status, verified.refusal.message);
  return verified.identity;
}
