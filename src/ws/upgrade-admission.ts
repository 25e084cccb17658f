// Who may open a /ws connection: the upgrade counted against its client's REST limit, and its token
// checked (or an anonymous identity given) before any world is chosen for it.
import type { IncomingMessage } from "node:http";
import type { AuthContext } from "@colyseus/core";
import { bearerToken, type Identity, issueAnonymousToken } from "../auth/tokens.js";
import { type AuthRefusal, countAttempt, verifyToken } from "../auth/verify.js";
import { clientKey } from "../limits/rate-limits.js";
import type { Runtime } from "../ports/runtime.js";
import { tokenOf, vouchFor } from "../rooms/room-auth.js";
import type { RelayPass } from "./relay-pass.js";

export class UpgradeAdmission {
  constructor(
    private readonly runtime: Runtime,
    private readonly relayPass: RelayPass,
  ) {}

  /** The refusal of an upgrade, or undefined once its client is counted and its identity vouched for. */
  async admit(request: IncomingMessage, context: AuthContext): Promise<AuthRefusal | undefined> {
    // Relayed by another process, which counted it and checked its token (possibly long ago: a hop).
    const relayed = this.relayPass.identityOf(request);
    if (relayed) {
      context.token = tokenOf(context);
      vouchFor(context, relayed);
      return undefined;
    }
    return (await this.countUpgrade(request, context)) ?? (await this.authenticate(context));
  }

  /**
   * Counts the upgrade as one REST request of its client, as the matchmaker's seat requests are: each
   * one verifies a token, reads the database and logs a player in on the thread that runs the tick, and
   * a client reconnecting without pause would otherwise do that a hundred times a second. A connection
   * relayed by another process was counted there.
   */
  private async countUpgrade(
    request: IncomingMessage,
    context: AuthContext,
  ): Promise<AuthRefusal | undefined> {
    if (this.relayPass.shownBy(request)) return undefined;
    const { limited, retryAfterSeconds } = await this.runtime.rateLimits.restRequests.hit(
      clientKey(context.ip),
    );
    if (!limited) return undefined;
    return {
      status: 429,
      code: "rate_limited",
      message: "too many requests; retry later",
      retryAfterSeconds,
    };
  }

  /**
   * Checks the token, or gives an anonymous identity when no provider is configured; a refusal otherwise.
   * The rooms the connection joins take the identity found here (see vouchFor).
   */
  private async authenticate(context: AuthContext): Promise<AuthRefusal | undefined> {
    const client = clientKey(context.ip);
    const token = tokenOf(context);
    if (token) {
      context.token = token;
      const verified = await verifyToken(this.runtime, token, client);
      if (verified.refusal) return verified.refusal;
      const conflict = await this.headerNamesAnother(context, token, verified.identity, client);
      if (conflict) return conflict;
      vouchFor(context, verified.identity);
      return undefined;
    }
    if (this.runtime.config.identityProvider) {
      return { status: 401, code: "unauthorized", message: "a bearer token is required" };
    }
    // Issuing an anonymous identity counts as an authentication attempt, as on the REST endpoint. It
    // comes as a token, which a relay to the world's process passes on.
    const refusal = await countAttempt(this.runtime, client);
    if (refusal) return refusal;
    const issued = await issueAnonymousToken(this.runtime.jwtSecret);
    context.token = issued.token;
    vouchFor(context, { subject: issued.subject, kind: "anonymous" });
    return undefined;
  }

  /**
   * A `?token=` beside an Authorization header that names another account is refused: which of the two
   * the connection plays must never be a silent choice. The same token in both places is one token.
   */
  private async headerNamesAnother(
    context: AuthContext,
    token: string,
    identity: Identity,
    client: string,
  ): Promise<AuthRefusal | undefined> {
    const fromHeader = bearerToken(context.headers.get("authorization"));
    if (!fromHeader || fromHeader === token) return undefined;
    const verified = await verifyToken(this.runtime, fromHeader, client);
    if (verified.refusal) return verified.refusal;
    if (verified.identity.subject === identity.subject) return undefined;
    return {
      status: 401,
      code: "unauthorized",
      message: "?token= and the Authorization header name different accounts: send one token",
    };
  }
}
