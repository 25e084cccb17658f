// What the agent process (`npm run agents`) asks the game server beyond the public API: which of its
// agents' owners are anonymous accounts gone for good, so it can free their slots as the server does,
// and to delete a removed agent's account and character, which frees its name.
import { z } from "zod";

export const ABSENT_OWNERS_PATH = "/api/v1/agent-process/absent-owners";

/** The most owners one request asks about (some 12 kB of ids, within the body limit); more take more requests. */
export const MAX_OWNERS_ASKED = 300;

export const absentOwnersBody = z.strictObject({
  accountIds: z.array(z.string().min(1).max(64)).max(MAX_OWNERS_ASKED),
  seconds: z
    .int()
    .min(1)
    .max(365 * 24 * 60 * 60),
});

/** Where the agent process deletes the account and character of its agent `agentId`. */
export function agentProcessAgentPath(agentId: string): string {
  return `/api/v1/agent-process/agents/${encodeURIComponent(agentId)}`;
}

/** An agent's id, as its account's token names it (`sub`). */
export const agentIdParam = z
  .string()
  .min(1)
  .max(255)
  .refine((id) => !/\p{Cc}/u.test(id), "control characters are not part of an agent id");

export interface AbsentOwnersAnswer {
  absent: string[];
}
