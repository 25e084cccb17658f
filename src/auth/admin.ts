// The `/admin <code>` chat command's side in the accounts: the code's check, counted as an authentication
// attempt, and the account made an admin's. The world room only calls these.
import type { Config } from "../config/config.js";
import type { AccountRepository } from "../db/accounts.js";
import { clientKey, type RateLimits } from "../limits/rate-limits.js";
import type { Refusal } from "../protocol/messages.js";
import { countAttempt } from "./verify.js";

/**
 * Why an `/admin` attempt from `ip` is refused, if it is. Every attempt counts against the client's
 * authentication limit, as a token would, so the code cannot be guessed faster than a token.
 */
export async function refuseAdminCode(
  runtime: { config: Pick<Config, "ADMIN_CODE">; rateLimits: RateLimits },
  ip: string | undefined,
  code: string,
): Promise<Refusal | undefined> {
  const { ADMIN_CODE } = runtime.config;
  if (await countAttempt(runtime, clientKey(ip)))
    return { code: "rate_limited", message: "Too many attempts: try again later." };
  if (!ADMIN_CODE) return { code: "forbidden", message: "Admin commands are disabled on this server." };
  if (code !== ADMIN_CODE) return { code: "forbidden", message: "Wrong admin code." };
  return undefined;
}

/** The account stays an admin's after the right code: the REST API lets it control the server's own agents. */
export function grantAdmin(runtime: { accounts: AccountRepository }, accountId: string): Promise<void> {
  return runtime.accounts.setAdmin(accountId, true);
}
