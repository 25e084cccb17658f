// What the agent process (`npm run agents`) asks the game server beyond the public API: which of its
// agents' owners are anonymous accounts gone for good, so it can free their slots as the server does.
import { z } from "zod";

export const ABSENT_OWNERS_PATH = "/api/v1/agent-process/absent-owners";

/** The most owners one request asks about (some 12 kB of ids, within the body limit); more take more requests. */
export const MAX_OWNERS_ASKED = 300;

export const absentOwnersBody = z.object({
  accountIds: z.array(z.string().min(1).max(64)).max(MAX_OWNERS_ASKED),
  seconds: z
    .int()
    .min(1)
    .max(365 * 24 * 60 * 60),
});

export interface AbsentOwnersAnswer {
  absent: string[];
}
