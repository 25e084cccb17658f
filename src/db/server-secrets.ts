import { eq } from "drizzle-orm";
import type { Database } from "./database.js";
import { serverSecrets } from "./schema.js";

/**
 * The secret `name` every process on this database shares: the one stored, or `candidate` stored now
 * when there is none yet (processes starting together all end up with the first one stored).
 */
export async function sharedSecret(
  db: Database,
  name: string,
  candidate: () => string,
): Promise<{ value: string; created: boolean }> {
  const [inserted] = await db
    .insert(serverSecrets)
    .values({ name, value: candidate() })
    .onConflictDoNothing()
    .returning({ value: serverSecrets.value });
  if (inserted) return { value: inserted.value, created: true };
  const [stored] = await db
    .select({ value: serverSecrets.value })
    .from(serverSecrets)
    .where(eq(serverSecrets.name, name));
  if (!stored) throw new Error(`the server secret ${name} is neither stored nor storable`);
  return { value: stored.value, created: false };
}
