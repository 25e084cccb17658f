import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "./database.js";
import { accounts } from "./schema.js";

export type Account = typeof accounts.$inferSelect;
export type AccountKind = Account["kind"];

export class AccountRepository {
  constructor(private readonly db: Executor) {}

  /**
   * The account of a verified identity, created the first time it is seen. Read first: every
   * authenticated request resolves its account, and only a new identity writes.
   */
  async findOrCreate(subject: string, kind: AccountKind): Promise<Account> {
    const existing = await this.find(subject);
    if (existing) return existing;
    const [created] = await this.db
      .insert(accounts)
      .values({ id: randomUUID(), subject, kind })
      .onConflictDoNothing({ target: accounts.subject })
      .returning();
    // Another request created it in the meantime.
    const account = created ?? (await this.find(subject));
    if (!account) throw new Error(`account ${subject} vanished while being created`);
    return account;
  }

  /** The account of an identity, if it has been seen. */
  async find(subject: string): Promise<Account | undefined> {
    const [account] = await this.db.select().from(accounts).where(eq(accounts.subject, subject));
    return account;
  }

  async get(id: string): Promise<Account | undefined> {
    const [account] = await this.db.select().from(accounts).where(eq(accounts.id, id));
    return account;
  }

  /** Notes that these accounts were seen now (the database's clock, which the agents' sweep reads too). */
  async markSeen(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .update(accounts)
      .set({ lastSeenAt: sql`now()` })
      .where(inArray(accounts.id, [...ids]));
  }

  /**
   * Those of `ids` that are anonymous accounts not seen for `seconds` (by the database's clock), or no
   * account at all any more (anonymous accounts long unseen are deleted: see deleteAbsentAnonymous).
   */
  async absentAnonymous(ids: readonly string[], seconds: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .select({
        id: accounts.id,
        absent: sql<boolean>`${accounts.kind} = 'anonymous' and ${accounts.lastSeenAt} < now() - make_interval(secs => ${seconds})`,
      })
      .from(accounts)
      .where(inArray(accounts.id, [...ids]));
    const present = new Set(rows.filter((row) => !row.absent).map((row) => row.id));
    return [...new Set(ids)].filter((id) => !present.has(id));
  }

  /**
   * Deletes up to `batch` anonymous accounts not seen for `seconds` (by the database's clock) that own
   * no agent, with their characters and everything those hold; gives how many went. Their trades stay on
   * record without them. Rows another sweep holds are skipped, not waited for.
   */
  async deleteAbsentAnonymous(seconds: number, batch: number): Promise<number> {
    const result = await this.db.execute(sql`
      delete from accounts where id in (
        select account.id from accounts as account
        where account.kind = 'anonymous'
          and account.last_seen_at < now() - make_interval(secs => ${seconds})
          and not exists (select 1 from agents where agents.owner_account_id = account.id)
        order by account.last_seen_at
        limit ${batch}
        for update skip locked)
      returning id`);
    return (result as unknown as { rows: unknown[] }).rows.length;
  }

  /**
   * Deletes the account of an agent of the agent process (`agent:<id>`), with its character and
   * everything that holds, which frees its name; true when it is gone (or never was). False, deleting
   * nothing, for an agent this server runs itself: those go with their rows (AgentRepository.delete).
   * Its world may hold the character a while yet: what it writes of it later is left out.
   */
  async deleteAgentProcessAgent(agentId: string): Promise<boolean> {
    const ownAgent = await this.db.execute(sql`select 1 from agents where id = ${agentId}`);
    if ((ownAgent as unknown as { rows: unknown[] }).rows.length > 0) return false;
    await this.db
      .delete(accounts)
      .where(and(eq(accounts.subject, `agent:${agentId}`), eq(accounts.kind, "agent")));
    return true;
  }

  async setAdmin(id: string, isAdmin: boolean): Promise<void> {
    await this.db.update(accounts).set({ isAdmin }).where(eq(accounts.id, id));
  }

  /** Mutes the account's characters until `until`; null lifts the mute. */
  async muteUntil(id: string, until: Date | null): Promise<void> {
    await this.db.update(accounts).set({ mutedUntil: until }).where(eq(accounts.id, id));
  }

  /** Bans the account from the world until `until`; null lifts the ban. */
  async banUntil(id: string, until: Date | null): Promise<void> {
    await this.db.update(accounts).set({ bannedUntil: until }).where(eq(accounts.id, id));
  }
}
